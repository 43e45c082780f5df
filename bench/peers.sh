#!/usr/bin/env bash
# Side-by-side scoring: recallgate `score` against trec_eval and the Python
# peers pytrec_eval, ir_measures and ranx, on the same seeded TREC files
# (QUERIES x HITS, graded qrels from bench/gen) and the same four measures:
# recall@50, P@5, nDCG@5 and reciprocal rank, every value per query.
#
#   TREC_EVAL=/path/to/trec_eval PYTHON=/path/to/python3 bash bench/peers.sh [QUERIES] [HITS]
#
# Each tool runs once, as a whole process under /usr/bin/time: wall time,
# CPU time (user + system) and peak RSS. For the Python peers that process
# is a small script that reads qrels.txt and run.trec with the peer's own
# readers, computes the four measures per query and writes them, so their
# figures include reading the files and starting the interpreter, as
# recallgate's and trec_eval's do. ranx compiles its metrics with numba the
# first time they run: its first process is timed as a whole with an empty
# numba cache, and inside it the first call (JIT compile included) and a
# second call reading and scoring the files again are timed each (wall and
# CPU); a second process with the cache the first one left is timed too.
#
# Every per-query value is compared with trec_eval's (-q, printed to 4
# decimals, so rounding alone leaves up to 0.00005): the table gives the
# largest absolute difference and how many values differ by more than 1e-4.
#
# trec_eval is not downloaded here: build it from its public source
# (github.com/usnistgov/trec_eval, `make`) and point TREC_EVAL at it, or put
# it on PATH. A Python peer that PYTHON (default python3) cannot import is
# skipped with the pip package to install (pytrec_eval-terrier, ir-measures,
# ranx); install them in a virtual environment of their own, not the
# project's.
set -euo pipefail
cd "$(dirname "$0")/.."
queries=${1:-3000}
hits=${2:-1000}
py=${PYTHON:-python3}
te=${TREC_EVAL:-$(command -v trec_eval || true)}
if [ -z "$te" ] || [ ! -x "$te" ]; then
  echo "trec_eval not available (set TREC_EVAL or put it on PATH): nothing to compare against" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rgversion=$(git describe --always --dirty 2>/dev/null || echo dev)
go build -ldflags "-X main.version=$rgversion" -o "$work/recallgate" ./cmd/recallgate
go run ./bench/gen -queries "$queries" -hits "$hits" -gold "${GOLD:-8}" -out "$work/data"
qrels=$work/data/qrels.txt
run=$work/data/run.trec
sync; cat "$qrels" "$run" > /dev/null # settle writeback and warm the page cache for every tool
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

timed() { # name command… : whole process under /usr/bin/time into $work/NAME.time
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time" "$@"
}

# The peers' scripts: argv is qrels, run, output; each writes
# "measure<TAB>query<TAB>value" lines with trec_eval's measure names.
cat > "$work/peer_pytrec_eval.py" <<'PY'
import sys
import pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
names = ("recall_50", "P_5", "ndcg_cut_5", "recip_rank")
res = pytrec_eval.RelevanceEvaluator(qrels, {"recall.50", "P.5", "ndcg_cut.5", "recip_rank"}).evaluate(run)
with open(sys.argv[3], "w") as out:
    for q, m in res.items():
        for n in names:
            out.write(f"{n}\t{q}\t{m[n]!r}\n")
PY
cat > "$work/peer_ir_measures.py" <<'PY'
import sys
import ir_measures
from ir_measures import P, RR, R, nDCG
names = {R@50: "recall_50", P@5: "P_5", nDCG@5: "ndcg_cut_5", RR: "recip_rank"}
qrels = ir_measures.read_trec_qrels(sys.argv[1])
run = ir_measures.read_trec_run(sys.argv[2])
with open(sys.argv[3], "w") as out:
    for m in ir_measures.iter_calc(list(names), qrels, run):
        out.write(f"{names[m.measure]}\t{m.query_id}\t{m.value!r}\n")
PY
cat > "$work/peer_ranx.py" <<'PY'
import sys, time
from ranx import Qrels, Run, evaluate
names = {"recall@50": "recall_50", "precision@5": "P_5", "ndcg@5": "ndcg_cut_5", "mrr": "recip_rank"}
def once(out_path):
    qrels = Qrels.from_file(sys.argv[1], kind="trec")
    run = Run.from_file(sys.argv[2], kind="trec")
    evaluate(qrels, run, list(names))
    with open(out_path, "w") as out:
        for m, n in names.items():
            for q, v in run.scores[m].items():
                out.write(f"{n}\t{q}\t{float(v)!r}\n")
def timed_once(out_path, time_path):
    w, c = time.perf_counter(), time.process_time()
    once(out_path)
    with open(time_path, "w") as f:
        f.write(f"{time.perf_counter() - w:.2f} {time.process_time() - c:.2f} 0 0\n")
if len(sys.argv) > 4:  # the first call (JIT compile) and the same work again, each timed inside
    timed_once(sys.argv[3], sys.argv[4] + ".first")
    timed_once(sys.argv[4] + ".out", sys.argv[4])
else:
    once(sys.argv[3])
PY

rows=()
timed recallgate "$work/recallgate" score --set "$qrels" --results "$run" --candidates 50 --context 5 --format json --out "$work/recallgate.json"
rows+=("recallgate|$rgversion|recallgate.time|recallgate.json")
timed trec_eval "$te" -c -q -m recall.50 -m P.5 -m ndcg_cut.5 -m recip_rank "$qrels" "$run" > "$work/trec_eval.out"
teversion=$("$te" --version 2>&1 | awk '{print $NF; exit}')
rows+=("trec_eval -c -q|$teversion|trec_eval.time|trec_eval.out")

peer() { # module pip-package
  if ! "$py" -c "import $1" 2> /dev/null; then
    echo "$1 not importable by $py: skipped (pip install $2)"
    return 1
  fi
  "$py" -c "import importlib.metadata as m; print(m.version('$2'))"
}
if v=$(peer pytrec_eval pytrec_eval-terrier); then
  timed pytrec_eval "$py" "$work/peer_pytrec_eval.py" "$qrels" "$run" "$work/pytrec_eval.out"
  rows+=("pytrec_eval|$v|pytrec_eval.time|pytrec_eval.out")
else echo "$v"; fi
if v=$(peer ir_measures ir-measures); then
  timed ir_measures "$py" "$work/peer_ir_measures.py" "$qrels" "$run" "$work/ir_measures.out"
  rows+=("ir_measures|$v|ir_measures.time|ir_measures.out")
else echo "$v"; fi
if v=$(peer ranx ranx); then
  NUMBA_CACHE_DIR=$work/numba timed ranx "$py" "$work/peer_ranx.py" "$qrels" "$run" "$work/ranx.out" "$work/ranx2.time"
  NUMBA_CACHE_DIR=$work/numba timed ranx3 "$py" "$work/peer_ranx.py" "$qrels" "$run" "$work/ranx3.out"
  cp "$work/ranx2.time.first" "$work/ranx1.time"
  rows+=("ranx, first process (start, JIT compile, both calls)|$v|ranx.time|ranx.out")
  rows+=("ranx, first call (JIT compile), timed inside|$v|ranx1.time|ranx.out")
  rows+=("ranx, second call in the same process|$v|ranx2.time|ranx2.time.out")
  rows+=("ranx, new process, JIT cache on disk|$v|ranx3.time|ranx3.out")
else echo "$v"; fi
"$py" -c 'import importlib.metadata as m, platform
v = []
for p in ("numba", "numpy", "pandas"):
    try: v.append(f"{p} {m.version(p)}")
    except m.PackageNotFoundError: pass
print(f"Python {platform.python_version()}", *v, sep=", ")'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$py" - "$work" "$queries" "$hits" "${rows[@]}" <<'PY'
import collections, json, os, sys
work, nq, nh, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def read_tsv(path, all_too=False):
    vals = {}
    for line in open(path):
        m, q, v = line.split()
        if q != "all" or all_too:
            vals[(m, q)] = float(v)
    return vals
te = read_tsv(os.path.join(work, "trec_eval.out"))
names = ("recall_50", "P_5", "ndcg_cut_5", "recip_rank")
te = {k: v for k, v in te.items() if k[0] in names}
keys = {"recall_at_n": "recall_50", "precision_at_k": "P_5", "ndcg_at_k": "ndcg_cut_5", "rr": "recip_rank"}
def values(path):
    if path.endswith(".json"):
        return {(n, q["id"]): q[f] for q in json.load(open(path))["queries"] for f, n in keys.items()}
    return read_tsv(path)
print(f"\n{nq:,} queries x {nh:,} hits, 4 measures: {len(te):,} per-query values from trec_eval\n")
print("| tool | version | wall | CPU (user+sys) | peak RSS | max abs difference from trec_eval | values beyond 1e-4 |")
print("|---|---|--:|--:|--:|--:|--:|")
bad = 0
for row in rows:
    tool, version, tfile, vfile = row.split("|")
    wall, user, sys_, kib = open(os.path.join(work, tfile)).read().split()
    cpu = float(user) + float(sys_)
    rss = f"{int(kib) // 1024:,} MiB" if int(kib) else "(same process)"
    got = values(os.path.join(work, vfile))
    diffs = [abs(got[k] - v) if k in got else float("inf") for k, v in te.items()]
    beyond = sum(1 for d in diffs if d > 1e-4 + 1e-9)
    per = collections.Counter(k[0] for k, v in te.items() if abs(got.get(k, float("inf")) - v) > 1e-4 + 1e-9)
    extra = len(set(got) - set(te))
    bad += beyond
    note = f" ({', '.join(f'{m}: {c:,}' for m, c in sorted(per.items()))})" if per else ""
    note += f" (+{extra:,} values trec_eval lacks)" if extra else ""
    if vfile == "trec_eval.out":
        print(f"| {tool} | {version} | {float(wall):.2f} s | {cpu:.2f} s | {rss} | (reference) | (reference) |")
        continue
    print(f"| {tool} | {version} | {float(wall):.2f} s | {cpu:.2f} s | {rss} | {max(diffs):.6f} | {beyond:,}{note} |")
sys.exit(1 if bad else 0)
PY
