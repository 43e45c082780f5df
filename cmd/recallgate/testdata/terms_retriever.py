import json, os, re, sys
MAX_WORDS = 400
root = sys.argv[1]
docs = {}
for dirpath, _, files in os.walk(root):
    for name in sorted(files):
        if name.endswith(".md"):
            p = os.path.join(dirpath, name)
            doc = os.path.splitext(os.path.relpath(p, root))[0].replace(os.sep, "/")
            with open(p, encoding="utf-8") as f:
                docs[doc] = set(re.findall(r"[a-z0-9]+", f.read().lower())[:MAX_WORDS])
for line in sys.stdin:
    req = json.loads(line)
    terms = set(re.findall(r"[a-z0-9]+", req["query"].lower()))
    scored = sorted(((len(terms & ws), d) for d, ws in docs.items()), key=lambda x: (-x[0], x[1]))
    hits = [{"doc": d, "score": s} for s, d in scored[: req["k"]] if s > 0]
    print(json.dumps({"id": req["id"], "hits": hits}), flush=True)
