#!/usr/bin/env bash
# Renders the demo's HTML report, opens it in headless Chromium with the
# "regressed" filter and query q26 clicked, and saves docs/report.png (the
# screenshot docs/reports.md shows).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./cmd/recallgate compare --config frozen-set/recallgate.toml \
  --base frozen-set/runs/base.jsonl --head frozen-set/runs/head.jsonl --format html --out "$work/report.html" || true
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --virtual-time-budget=3000 \
  --window-size=1200,1100 --screenshot="$PWD/docs/report.png" "file://$work/report.html#filter=regressed&query=q26" 2>/dev/null
echo "wrote docs/report.png"
