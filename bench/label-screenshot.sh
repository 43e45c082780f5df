#!/usr/bin/env bash
# Starts `recallgate label` on a draft of demo queries (pooled by the
# demo's two builtin retrievers), grades the first document in headless
# Chromium and saves docs/label.png (the screenshot README.md shows).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
cleanup() { [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cp -r frozen-set/corpus "$work/corpus"
head -n 5 frozen-set/queries.jsonl | sed -E 's/"gold": \{[^}]*\}/"gold": {}/; s/, "verified": "[0-9-]+"//' > "$work/draft.jsonl"
cat > "$work/recallgate.toml" <<'TOML'
set = "draft.jsonl"
[base.retriever]
type = "builtin"
corpus = "corpus"
title_boost = 2.0
[head.retriever]
type = "builtin"
corpus = "corpus"
chunk_words = 12
TOML
go build -o "$work/recallgate" ./cmd/recallgate
"$work/recallgate" label --config "$work/recallgate.toml" --labeller ana --depth 4 > "$work/out" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q http "$work/out" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$work/out")
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --virtual-time-budget=5000 \
  --window-size=1100,900 --screenshot="$PWD/docs/label.png" "${url}#keys=0,j,0,j,3,j,0,k" 2>/dev/null
echo "wrote docs/label.png"
