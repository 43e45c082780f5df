#!/usr/bin/env python3
"""A recallgate "command" retriever: BM25F over the demo corpus with Whoosh.

It indexes the corpus folder once at start-up, then answers one JSON request
a line on stdin ({"id","query","k"}) with one JSON line on stdout
({"id","hits":[...]}). Logs go to stderr. Usage:

    whoosh_retriever.py CORPUS_DIR [CHUNK_WORDS] [--context N]

With --context N the answer also carries the pipeline's final context, the
passages the model would read: the first passage of each of the first N
documents (a dedup step that keeps one passage per document), with their
token counts ({"id","hits":[...],"context":[{"doc","chunk","text","tokens"}]}).
"""
import json
import os
import sys

from whoosh.analysis import StemmingAnalyzer
from whoosh.fields import ID, STORED, TEXT, Schema
from whoosh.filedb.filestore import RamStorage
from whoosh.qparser import OrGroup, QueryParser
from whoosh.scoring import BM25F


def documents(root):
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith((".md", ".txt")):
                continue
            path = os.path.join(dirpath, name)
            doc = os.path.splitext(os.path.relpath(path, root))[0].replace(os.sep, "/")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            title = ""
            first, _, rest = text.partition("\n")
            if first.startswith("# "):
                title, text = first[2:].strip(), rest
            yield doc, title, text


def chunks(text, n):
    words = text.split()
    if n <= 0 or not words:
        yield 0, text
        return
    for i in range(0, len(words), n):
        yield i // n, " ".join(words[i:i + n])


def final_context(hits, n):
    """One passage per document, the first N documents, in rank order."""
    seen, out = set(), []
    for h in hits:
        if h["doc"] in seen:
            continue
        seen.add(h["doc"])
        out.append({"doc": h["doc"], "chunk": h["chunk"], "text": h["text"], "tokens": len(h["text"].split())})
        if len(out) == n:
            break
    return out


def main():
    args = sys.argv[1:]
    context = 0
    if "--context" in args:
        i = args.index("--context")
        context = int(args[i + 1])
        del args[i:i + 2]
    root = args[0]
    chunk_words = int(args[1]) if len(args) > 1 else 0
    schema = Schema(doc=ID(stored=True), chunk=ID(stored=True, unique=True),
                    body=TEXT(analyzer=StemmingAnalyzer()), text=STORED)
    index = RamStorage().create_index(schema)
    writer = index.writer()
    count = 0
    for doc, title, text in documents(root):
        for i, part in chunks(text, chunk_words):
            chunk = f"{doc}#{i}" if chunk_words > 0 else doc
            writer.add_document(doc=doc, chunk=chunk, body=f"{title}\n{part}", text=part)
            count += 1
    writer.commit()
    print(f"whoosh retriever: indexed {count} chunks from {root}", file=sys.stderr)

    parser = QueryParser("body", schema, group=OrGroup)
    with index.searcher(weighting=BM25F()) as searcher:
        for line in sys.stdin:
            if not line.strip():
                continue
            req = json.loads(line)
            query = parser.parse(req["query"])
            results = searcher.search(query, limit=max(1, int(req["k"])))
            hits = [{"doc": r["doc"], "chunk": r["chunk"], "score": round(r.score, 6), "text": r["text"]}
                    for r in results]
            answer = {"id": req["id"], "hits": hits}
            if context > 0:
                answer["context"] = final_context(hits, context)
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
