# retriever.py, written by `recallgate init --retriever command`: a starter retriever that
# answers recallgate's protocol with word counts over eval/corpus/**/*.md. Replace the
# scoring with your own search; keep the protocol: one JSON request a line on stdin,
# {"id","query","k"}, one JSON answer a line on stdout, {"id","hits":[{"doc","score"}]},
# best first (debug output goes to stderr).
import json, pathlib, sys

root = pathlib.Path("eval/corpus")
docs = {p.relative_to(root).with_suffix("").as_posix(): p.read_text().lower()
        for p in root.rglob("*.md")}
for line in sys.stdin:                                   # one request a line
    req = json.loads(line)
    words = req["query"].lower().split()
    score = {d: sum(text.count(w) for w in words) for d, text in docs.items()}
    top = sorted(docs, key=lambda d: (-score[d], d))[: req["k"]]
    hits = [{"doc": d, "score": score[d]} for d in top if score[d] > 0]
    print(json.dumps({"id": req["id"], "hits": hits}), flush=True)  # one answer a line
