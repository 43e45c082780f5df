"""A team's own search service, as kept in its repository: stdlib only.

POST /search {"q": "...", "k": 5} ranks the documents of docs/ (one .txt a
document, its name the id) by the query words they share, and answers
{"hits": [{"id", "score"}]}, at most CAP of them. Any GET answers 200, so
the default ready path (the url's own) is enough.

--dump DIR writes DIR/<pid>.json at start: the service's environment, what
reading its parent's /proc/<ppid>/environ gave, its pid and the pid of a
helper it starts (a sleeping child in its process group). --slow S waits S
seconds before each answer. --escape DIR starts a helper that leaves the
service's session by a double fork (escaped-<pid> in DIR). It says on its stdout how many documents it
indexed and where it listens, as services do.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CAP = 50

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--dump")
ap.add_argument("--slow", type=float, default=0)
ap.add_argument("--escape")
args = ap.parse_args()

if args.escape:
    # A daemon's helper: fork, setsid() and fork again, so the helper is
    # in a session and a group of its own and its parent is gone; it
    # writes its pid to ESCAPE/escaped-<pid> and sleeps.
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            with open(os.path.join(args.escape, "escaped-%d" % os.getpid()), "w") as f:
                f.write(str(os.getpid()))
            time.sleep(300)
        os._exit(0)
    os.wait()

docs = {}
for name in sorted(os.listdir("docs")):
    with open(os.path.join("docs", name), encoding="utf-8") as f:
        docs[name.rsplit(".", 1)[0]] = set(f.read().lower().split())

if args.dump:
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        with open("/proc/%d/environ" % os.getppid(), "rb") as f:
            parent = f.read().decode("utf-8", "replace")
    except OSError as e:
        parent = "unreadable: " + type(e).__name__
    with open(os.path.join(args.dump, "%d.json" % os.getpid()), "w") as f:
        json.dump({"pid": os.getpid(), "helper": helper.pid, "cwd": os.getcwd(),
                   "environ": dict(os.environ), "parent_environ": parent}, f)


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.answer({"ok": True})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if args.slow:
            time.sleep(args.slow)
        words = set(body["q"].lower().split())
        scored = sorted(((len(words & terms), doc) for doc, terms in docs.items() if words & terms),
                        key=lambda p: (-p[0], p[1]))
        hits = [{"id": doc, "score": score} for score, doc in scored[:min(body["k"], CAP)]]
        self.answer({"hits": hits})

    def answer(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *a):
        pass


print("indexed %d documents" % len(docs), flush=True)
server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
print("listening on 127.0.0.1:%d" % args.port, flush=True)
server.serve_forever()
