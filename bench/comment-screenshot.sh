#!/usr/bin/env bash
# Renders the pull request comment of the demo gate (its Markdown report,
# from the saved runs) and saves docs/comment.png, the picture README.md
# shows. Not GitHub's own rendering: Python-Markdown (Debian's
# python3-markdown, tables and fenced code) and headless Chromium (emoji from
# fonts-noto-color-emoji), with a
# stylesheet close to GitHub's; the picture stops before the Mermaid chart,
# which GitHub draws and this renderer does not.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go run ./cmd/recallgate compare --config frozen-set/recallgate.toml \
  --base frozen-set/runs/base.jsonl --head frozen-set/runs/head.jsonl --format markdown --out "$work/comment.md" || true
/usr/bin/python3 - "$work/comment.md" "$work/comment.html" <<'PY'
import sys, markdown
body = markdown.markdown(open(sys.argv[1], encoding="utf-8").read(), extensions=["tables", "fenced_code"])
css = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: #1f2328;
       margin: 0; padding: 16px; background: #fff; }
.comment { max-width: 1060px; border: 1px solid #d1d9e0; border-radius: 6px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e; }
.body { padding: 0 16px 8px; }
h3 { font-size: 1.25em; margin: 16px 0; }
table { border-collapse: collapse; margin: 0 0 16px; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
tr:nth-child(2n) td { background: #f6f8fa; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 85%; background: #f6f8fa; }
"""
html = f"""<!doctype html><meta charset="utf-8"><style>{css}</style>
<div class="comment"><div class="head"><b>github-actions</b> bot commented</div><div class="body">{body}</div></div>"""
open(sys.argv[2], "w", encoding="utf-8").write(html)
PY
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --virtual-time-budget=3000 \
  --hide-scrollbars --window-size=1100,1032 --screenshot="$PWD/docs/comment.png" "file://$work/comment.html" 2>/dev/null
echo "wrote docs/comment.png"
