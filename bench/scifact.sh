#!/usr/bin/env bash
# Measures the builtin BM25 on BEIR SciFact with recallgate itself:
# retrieval time and memory, then nDCG@10 and recall@100 with `recallgate score`.
#
#   bash bench/scifact.sh [DATA]
#
# DATA is the SciFact folder (corpus.jsonl.gz, queries.jsonl, qrels.tsv), by
# default ../shared/data/scifact beside this checkout; SciFact is the BEIR
# benchmark's public collection (github.com/beir-cellar/beir), test split.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(cd "${1:-../shared/data/scifact}" 2>/dev/null && pwd) || { echo "no SciFact folder at ${1:-../shared/data/scifact}: give its path (corpus.jsonl.gz, queries.jsonl, qrels.tsv)" >&2; exit 2; }
for f in corpus.jsonl.gz queries.jsonl qrels.tsv; do
  [ -f "$data/$f" ] || { echo "$data has no $f" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/recallgate" ./cmd/recallgate
cat > "$work/recallgate.toml" <<TOML
# BEIR SciFact (test split), scored with the builtin BM25 at its defaults
# (k1 = 0.9, b = 0.4, flat title, English analysis), the setting of the
# published Anserini/Pyserini "BM25 flat" figures.
set = "$data/qrels.tsv"
queries = "$data/queries.jsonl"
[depth]
candidates = 100
context = 10
[retriever]
type = "builtin"
corpus = "$data/corpus.jsonl.gz"
TOML
/usr/bin/time -f "retrieve: %e s wall, %M KiB peak RSS" "$work/recallgate" retrieve --config "$work/recallgate.toml" --out "$work/run.jsonl"
"$work/recallgate" score --set "$data/qrels.tsv" --results "$work/run.jsonl" --candidates 100 --context 10 --format json |
  python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print("SciFact builtin BM25: nDCG@10 %.4f  R@100 %.4f  (published BM25 flat: 0.679 / 0.925)" % (s["ndcg_at_k"], s["recall_at_n"]))'
