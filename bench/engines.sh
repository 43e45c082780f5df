#!/usr/bin/env bash
# recallgate's builtin BM25 beside SQLite FTS5 and Xapian on BEIR SciFact:
# for each engine, index the 5,183 documents and answer the 300 queries
# (top 100), end to end, then score every run with `recallgate score`
# (nDCG@10, recall@100).
#
#   bash bench/engines.sh [DATA]
#
# DATA is the SciFact folder (corpus.jsonl.gz, queries.jsonl, qrels.tsv),
# default ../shared/data/scifact. FTS5 comes with Python's sqlite3; Xapian
# with Debian's python3-xapian (apt-get install python3-xapian), skipped
# with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(cd "${1:-../shared/data/scifact}" 2>/dev/null && pwd) || { echo "no SciFact folder at ${1:-../shared/data/scifact}" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/recallgate" ./cmd/recallgate
cat > "$work/rg.toml" <<TOML
set = "$data/qrels.tsv"
queries = "$data/queries.jsonl"
[depth]
candidates = 100
context = 10
[retriever]
type = "builtin"
corpus = "$data/corpus.jsonl.gz"
TOML
py=/usr/bin/python3
score() { # engine run seconds kib
  "$work/recallgate" score --set "$data/qrels.tsv" --results "$2" --candidates 100 --context 10 --format json 2>/dev/null |
    $py -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print("%-10s %6.2f s %6d MiB   nDCG@10 %.4f   R@100 %.4f" % (sys.argv[1], float(sys.argv[2]), int(sys.argv[3])//1024, s["ndcg_at_k"], s["recall_at_n"]))' "$1" "$3" "$4"
}
timed() { # engine run command…
  local engine=$1 run=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$work/$engine.time" "$@" > /dev/null 2>"$work/$engine.err" || { echo "$engine failed: $(tail -1 "$work/$engine.err")"; return 0; }
  read -r s kb < "$work/$engine.time"
  score "$engine" "$run" "$s" "$kb"
}
echo "engine       wall   peak RSS   (index 5,183 docs + 300 queries, top 100)"
timed recallgate "$work/rg.jsonl" "$work/recallgate" retrieve --config "$work/rg.toml" --out "$work/rg.jsonl"
timed fts5 "$work/fts5.trec" $py bench/engines/fts5.py "$data/corpus.jsonl.gz" "$data/queries.jsonl" "$work/fts5.trec"
if $py -c 'import xapian' 2>/dev/null; then
  timed xapian "$work/xapian.trec" $py bench/engines/xapian_bm25.py "$data/corpus.jsonl.gz" "$data/queries.jsonl" "$work/xapian.trec"
else
  echo "xapian     skipped: python3-xapian is not installed (apt-get install python3-xapian)"
fi
