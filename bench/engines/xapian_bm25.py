"""Xapian (Debian's python3-xapian) over a BEIR corpus: an in-memory
index with English stemming, then the top 100 of every query by BM25,
written as a TREC run.

    /usr/bin/python3 xapian_bm25.py CORPUS.jsonl.gz QUERIES.jsonl RUN.trec
"""
import gzip, json, sys

import xapian

corpus, queries, out = sys.argv[1:4]
db = xapian.WritableDatabase("", xapian.DB_BACKEND_INMEMORY)
tg = xapian.TermGenerator()
tg.set_stemmer(xapian.Stem("english"))
with gzip.open(corpus, "rt", encoding="utf-8") as f:
    for d in map(json.loads, f):
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(d.get("title", ""))
        tg.increase_termpos()
        tg.index_text(d.get("text", ""))
        doc.set_data(d["id"])
        db.add_document(doc)
qp = xapian.QueryParser()
qp.set_stemmer(xapian.Stem("english"))
qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
qp.set_default_op(xapian.Query.OP_OR)
enq = xapian.Enquire(db)
enq.set_weighting_scheme(xapian.BM25Weight(0.9, 0, 1, 0.4, 0.5))
with open(queries, encoding="utf-8") as f, open(out, "w") as w:
    for q in map(json.loads, f):
        enq.set_query(qp.parse_query(q["text"]))
        for rank, m in enumerate(enq.get_mset(0, 100), 1):
            w.write("%s Q0 %s %d %.6f xapian\n" % (q["id"], m.document.get_data().decode(), rank, m.weight))
