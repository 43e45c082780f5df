# search_service.py, written by `recallgate init --retriever http`: a starter search
# service kept in the repository, word counts over eval/corpus/**/*.md behind HTTP.
# Replace the scoring with your own search; recallgate starts it itself (the start key
# of [retriever]) on a free port given as --port, waits until it answers, queries it,
# and stops it. POST /search {"query", "k"} answers {"hits": [{"doc", "score"}]}.
import argparse, json, pathlib
from http.server import BaseHTTPRequestHandler, HTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
port = ap.parse_args().port
root = pathlib.Path("eval/corpus")
docs = {p.relative_to(root).with_suffix("").as_posix(): p.read_text().lower()
        for p in root.rglob("*.md")}


class Search(BaseHTTPRequestHandler):
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        words = req["query"].lower().split()
        score = {d: sum(text.count(w) for w in words) for d, text in docs.items()}
        top = sorted(docs, key=lambda d: (-score[d], d))[: req["k"]]
        hits = [{"doc": d, "score": score[d]} for d in top if score[d] > 0]
        body = json.dumps({"hits": hits}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # one line a request would flood the job's log
        pass


HTTPServer(("127.0.0.1", port), Search).serve_forever()
