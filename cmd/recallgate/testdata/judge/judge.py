#!/usr/bin/env python3
"""A small judge over the corpus text, standing in for an LLM judge.

It reads one request a line on stdin ({"query_id","query","doc","text",
"grades","guideline"}) and answers one line on stdout ({"grade","reason",
"tokens"}). Its "model" is a tag in the document's text: "[g2]" is grade 2,
no tag grade 0. The first argument picks a misbehaviour for the tests:
good, grade7, notjson, otherdoc, sleep, crash, hostile, esc (a reason of
2,000 ESC bytes), quotes (a reason of 2,000 double quotes).
"""
import json
import re
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "good"
HOSTILE = "<script>alert(1)</script> ::set-output name=x::y\n::error::forged *bold* [link](javascript:alert(1)) \u202eevil"

for line in sys.stdin:
    req = json.loads(line)
    m = re.search(r"\[g([0-3])\]", req["text"])
    grade = int(m.group(1)) if m else 0
    answer = {"grade": grade, "reason": "tag says %d" % grade, "tokens": len(req["text"].split())}
    if mode == "grade7":
        answer["grade"] = 7
    elif mode == "notjson":
        sys.stdout.write("I think this is relevant\n")
        sys.stdout.flush()
        continue
    elif mode == "otherdoc":
        answer["doc"] = req["doc"] + "-other"
    elif mode == "sleep":
        time.sleep(30)
    elif mode == "crash":
        sys.exit(4)
    elif mode == "hostile":
        answer["reason"] = HOSTILE
    elif mode == "esc":
        answer["reason"] = "\x1b" * 2000
    elif mode == "quotes":
        answer["reason"] = '"' * 2000
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
