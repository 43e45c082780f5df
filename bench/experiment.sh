#!/usr/bin/env bash
# Measures `recallgate experiment` against `recallgate gate` on BEIR SciFact
# (5,183 documents, 300 test queries, builtin BM25): peak RSS and wall time
# (/usr/bin/time -v) of the experiment with 1, 2, 4 and 8 variants, beside
# one gate of each of its (baseline, variant) pairs. docs/figures.md gives
# the table this prints.
#
#   bash bench/experiment.sh [RUNS] [DATA]
#
# RUNS is how many times each command runs (3); DATA the SciFact folder
# (corpus.jsonl.gz, queries.jsonl, qrels.tsv), by default
# ../shared/data/scifact beside this checkout. Without it the script says
# so and exits 0 (a fresh clone has no ../shared). The configs it runs are
# written to $KEEP when that is set (the folder is kept), else to a
# temporary folder. RECALLGATE names a recallgate binary to measure in
# place of this checkout's (an older build, for a before-and-after).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
data=$(cd "${2:-../shared/data/scifact}" 2>/dev/null && pwd) || { echo "skipping: no SciFact folder at ${2:-../shared/data/scifact} (a fresh clone has no ../shared; give its path)"; exit 0; }
for f in corpus.jsonl.gz queries.jsonl qrels.tsv; do
  [ -f "$data/$f" ] || { echo "skipping: $data has no $f"; exit 0; }
done
if [ -n "${KEEP:-}" ]; then work=$KEEP; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
if [ -n "${RECALLGATE:-}" ]; then cp "$RECALLGATE" "$work/recallgate"; else go build -o "$work/recallgate" ./cmd/recallgate; fi

# The eight variants: BM25's k1 and b, a title field, chunking, no
# stemming, no stop words. Three share an index with another (k1 and b
# score the same postings).
names=(k12b75 title2 chunk200 nostem nostop k06b3 title2k12 chunk100)
declare -A keys=(
  [k12b75]='k1 = 1.2
b = 0.75'
  [title2]='title_boost = 2.0'
  [chunk200]='chunk_words = 200
chunk_overlap = 50'
  [nostem]='stem = false'
  [nostop]='stop_words = false'
  [k06b3]='k1 = 0.6
b = 0.3'
  [title2k12]='title_boost = 2.0
k1 = 1.2
b = 0.75'
  [chunk100]='chunk_words = 100
chunk_overlap = 20'
)
head() {
  cat <<TOML
set = "$data/qrels.tsv"
queries = "$data/queries.jsonl"
[depth]
candidates = 100
context = 10
[base.retriever]
type = "builtin"
corpus = "$data/corpus.jsonl.gz"
TOML
}
table() { # table HEADER NAME
  printf '[%s]\ntype = "builtin"\ncorpus = "%s"\n%s\n' "$1" "$data/corpus.jsonl.gz" "${keys[$2]}"
}
for n in 1 2 4 8; do
  { head; for v in "${names[@]:0:n}"; do table "variant.$v.retriever" "$v"; done; } > "$work/experiment-$n.toml"
done
for v in "${names[@]}"; do
  { head; table head.retriever "$v"; } > "$work/gate-$v.toml"
done

# measure LABEL COMMAND...: one run, the line "LABEL wall_s cpu_s
# peak_MiB" (cpu: user + system, which other jobs on a shared machine
# inflate less than the wall time).
measure() {
  local label=$1; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$work/time.txt" || { rc=$?; [ "$rc" -le 1 ] || { cat "$work/time.txt" >&2; exit "$rc"; }; }
  awk -v l="$label" '/Elapsed \(wall clock\)/ {n=split($NF,t,":"); s=(n==3)? t[1]*3600+t[2]*60+t[3] : t[1]*60+t[2]} /User time|System time/ {c+=$NF} /Maximum resident/ {m=$NF/1024} END {printf "%s %.2f %.2f %.0f\n", l, s, c, m}' "$work/time.txt"
}
# Each round runs the eight gates and then the four experiments back to
# back, and ends with the ratios of that round: the 8-variant experiment's
# wall and CPU time over the eight gates' sum, its peak over the largest
# gate's.
for round in $(seq "$runs"); do
  echo "round $round, load: $(uptime | sed 's/.*load average: //')"
  {
    for v in "${names[@]}"; do
      measure "gate-$v" "$work/recallgate" gate --config "$work/gate-$v.toml" --format json
    done
    for n in 1 2 4 8; do
      measure "experiment-$n" "$work/recallgate" experiment --config "$work/experiment-$n.toml" --format json
    done
  } | tee "$work/round.txt"
  awk '/^gate-/ {w+=$2; c+=$3; if ($4>m) m=$4} /^experiment-8 / {ew=$2; ec=$3; em=$4}
       END {printf "round ratios: experiment-8 / 8 gates: wall %.2f, cpu %.2f; peak / largest gate %.2f (%d / %d MiB)\n", ew/w, ec/c, em/m, em, m}' "$work/round.txt"
done
echo "load: $(uptime | sed 's/.*load average: //')"
