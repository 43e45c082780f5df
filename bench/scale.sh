#!/usr/bin/env bash
# Times the gate around the builtin BM25 on SciFact grown to a larger corpus
# (perturbed copies with new ids, written by bench/gen -grow), 30 queries,
# N = 100: the gate with one shared index (base and head differ in k1/b),
# with two indexes (title_boost = 2 on the head), gate --write-baseline and
# a drift run against that baseline. Wall, CPU and peak RSS from
# /usr/bin/time -v, one run each.
#
#   bash bench/scale.sh [COPIES] [DATA]
#
# COPIES is how many perturbed copies of each document to add (default 38:
# 202,137 documents; 9 gives 51,830). DATA is the SciFact folder
# (corpus.jsonl.gz, queries.jsonl, qrels.tsv), by default
# ../shared/data/scifact beside this checkout. RECALLGATE_BIN, when set, is
# the binary to time (another build, to compare); else this checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-38}
data=$(cd "${2:-../shared/data/scifact}" 2>/dev/null && pwd) || { echo "no SciFact folder at ${2:-../shared/data/scifact}" >&2; exit 2; }
for f in corpus.jsonl.gz queries.jsonl qrels.tsv; do
  [ -f "$data/$f" ] || { echo "$data has no $f" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time) for peak RSS" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${RECALLGATE_BIN:-}
if [ -z "$bin" ]; then
  bin=$work/recallgate
  go build -o "$bin" ./cmd/recallgate
fi
go run ./bench/gen -grow "$data/corpus.jsonl.gz" -copies "$copies" -out "$work"
# The first 30 queries of the test qrels.
awk -F'\t' 'NR == 1 { print; next } !($1 in q) { if (n == 30) next; q[$1] = 1; n++ } { print }' "$data/qrels.tsv" > "$work/qrels.tsv"
common() {
  cat <<TOML
set = "$work/qrels.tsv"
queries = "$data/queries.jsonl"
[depth]
candidates = 100
context = 10
[gate]
max_recall_drop = 1.0
max_new_misses = 1000
TOML
}
# tables HEAD_KEYS: base and head builtin tables over the grown corpus,
# the head's with HEAD_KEYS added.
tables() {
  common
  printf '[base.retriever]\ntype = "builtin"\ncorpus = "%s"\n' "$work/corpus.jsonl.gz"
  printf '[head.retriever]\ntype = "builtin"\ncorpus = "%s"\n%b' "$work/corpus.jsonl.gz" "$1"
}
tables 'k1 = 1.2\nb = 0.75\n' > "$work/shared.toml"
tables 'title_boost = 2\n' > "$work/two.toml"
timed() {
  local name=$1; shift
  local rc=0
  /usr/bin/time -v -o "$work/time.txt" "$bin" "$@" > /dev/null 2> "$work/stderr.txt" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "$name: exit $rc" >&2; tail -5 "$work/stderr.txt" >&2; exit 1
  fi
  awk -v name="$name" -F': ' '
    /User time/ { u = $2 } /System time/ { s = $2 }
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
    /Maximum resident/ { m = $2 }
    END { printf "| %s | %.1f s | %.1f s | %d MiB |\n", name, w, u + s, m / 1024 }' "$work/time.txt"
}
docs=$(( 5183 * (copies + 1) ))
echo "SciFact grown to $docs documents, 30 queries, N = 100 ($bin)"
echo "| run | wall | CPU | peak RSS |"
echo "|---|--:|--:|--:|"
timed "gate, one shared index (k1/b differ)" gate --config "$work/shared.toml"
timed "gate, two indexes (title_boost = 2 on the head)" gate --config "$work/two.toml"
timed "gate --write-baseline (shared index)" gate --config "$work/shared.toml" --write-baseline "$work/baseline.jsonl"
timed "drift (shared index)" drift --config "$work/shared.toml" --baseline "$work/baseline.jsonl"
