#!/usr/bin/env bash
# Side-by-side: recallgate vs trec_eval on a seeded synthetic case
# (10,000 queries x 1,000 hits, graded qrels), same TREC files, one run.
# It checks that both compute the same per-query recall@50, P@5, nDCG@5 and
# RR, then prints wall time, peak memory and the ratio.
#
#   TREC_EVAL=/path/to/trec_eval bash bench/trec_eval.sh [QUERIES] [HITS]
#   GOLD=31 ZERO_EVERY=20 TREC_EVAL=… bash bench/trec_eval.sh 3000 1000
#
# GOLD is how many documents each query has judged (default 8); ZERO_EVERY
# judges every N-th query only grade 0, as TREC qrels may (default none):
# recallgate keeps those apart as unanswerable and reports trec_eval's
# means over all queries beside its own, and the script compares those too.
#
# trec_eval is not downloaded here: build it from its public source
# (github.com/usnistgov/trec_eval, `make`) and point TREC_EVAL at it, or put
# it on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
queries=${1:-10000}
hits=${2:-1000}
te=${TREC_EVAL:-$(command -v trec_eval || true)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/recallgate" ./cmd/recallgate
go run ./bench/gen -queries "$queries" -hits "$hits" -gold "${GOLD:-8}" -zero-every "${ZERO_EVERY:-0}" -out "$work/data"
sync; cat "$work"/data/* > /dev/null   # settle writeback and warm the page cache for both tools
/usr/bin/time -f "%e %M" -o "$work/rg.time" "$work/recallgate" score --set "$work/data/qrels.txt" --results "$work/data/run.trec" --format json --out "$work/rg.json"
read -r rg_s rg_kb < "$work/rg.time"
echo "recallgate: ${rg_s} s wall, $((rg_kb / 1024)) MiB peak RSS ($queries queries x $hits hits)"
if [ -z "$te" ] || [ ! -x "$te" ]; then
  echo "trec_eval not available (set TREC_EVAL or put it on PATH): no ratio measured"
  exit 0
fi
/usr/bin/time -f "%e %M" -o "$work/te.time" "$te" -c -q -m recall.50 -m P.5 -m ndcg_cut.5 -m recip_rank "$work/data/qrels.txt" "$work/data/run.trec" > "$work/te.out"
read -r te_s te_kb < "$work/te.time"
echo "trec_eval:  ${te_s} s wall, $((te_kb / 1024)) MiB peak RSS"
python3 - "$work/te.out" "$work/rg.json" <<'PY'
import collections, json, sys
te = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m, q, v = line.split()
    te[q][m] = float(v)
rg = json.load(open(sys.argv[2]))
keys = {"recall_50": "recall_at_n", "P_5": "precision_at_k", "ndcg_cut_5": "ndcg_at_k", "recip_rank": "rr"}
bad = sum(1 for q in rg["queries"] for t, r in keys.items() if abs(te[q["id"]].get(t, 0.0) - round(q[r], 4)) > 1e-4 + 1e-9)
print(f"per-query values compared: {len(rg['queries'])} queries x 4 metrics, {bad} differences beyond trec_eval's 4 printed decimals")
means = rg["summary"].get("trec_eval") or rg["summary"]
worse = [t for t, r in keys.items() if abs(te["all"][t] - round(means[r], 4)) > 1e-4 + 1e-9]
print(f"means over trec_eval's {int(te['all'].get('num_q', means.get('queries', 0)))} queries (all, the grade-0-only ones included): {len(worse)} of 4 differ {worse if worse else ''}")
bad += len(worse)
sys.exit(1 if bad else 0)
PY
python3 -c "print(f'ratio: recallgate is {float($te_s)/float($rg_s):.1f}x faster in wall time, {int($te_kb)/int($rg_kb):.1f}x less peak memory')"
