"""SQLite FTS5 (Python's sqlite3) over a BEIR corpus: index, then the top
100 of every query by FTS5's bm25(), written as a TREC run.

    python3 fts5.py CORPUS.jsonl.gz QUERIES.jsonl RUN.trec
"""
import gzip, json, re, sqlite3, sys

corpus, queries, out = sys.argv[1:4]
db = sqlite3.connect(":memory:")
db.execute("CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize='porter unicode61')")
with gzip.open(corpus, "rt", encoding="utf-8") as f:
    db.executemany("INSERT INTO docs VALUES (?, ?, ?)",
                   ((d["id"], d.get("title", ""), d.get("text", "")) for d in map(json.loads, f)))
db.commit()
word = re.compile(r"[A-Za-z0-9]+")
with open(queries, encoding="utf-8") as f, open(out, "w") as w:
    for q in map(json.loads, f):
        terms = word.findall(q["text"])
        if not terms:
            continue
        match = " OR ".join('"%s"' % t for t in terms)
        rows = db.execute("SELECT id, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 100", (match,))
        for rank, (doc, score) in enumerate(rows, 1):
            w.write("%s Q0 %s %d %.6f fts5\n" % (q["id"], doc, rank, -score))
