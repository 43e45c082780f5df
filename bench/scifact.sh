#!/usr/bin/env bash
# Measures the builtin BM25 on BEIR SciFact with recallgate itself:
# retrieval time and memory, then nDCG@10 and recall@100 with `recallgate score`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/recallgate
go build -o "$bin" ./cmd/recallgate
run=$(mktemp --suffix=.jsonl)
/usr/bin/time -f "retrieve: %e s wall, %M KiB peak RSS" "$bin" retrieve --config bench/scifact/recallgate.toml --out "$run"
"$bin" score --set ../shared/data/scifact/qrels.tsv --results "$run" --candidates 100 --context 10 --format json |
  python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print("SciFact builtin BM25: nDCG@10 %.4f  R@100 %.4f  (published BM25 flat: 0.679 / 0.925)" % (s["ndcg_at_k"], s["recall_at_n"]))'
