"""Xapian BM25 on the terms the project's analyzer produced, for comparison.

Reads passages.jsonl and queries.jsonl written by `go run ./bench/retrieval
-export` and project.jsonl (the project's top-k), indexes the passages in a
Xapian glass database (in id order, so Xapian's docid tie-break is the
project's passage-id tie-break), runs every query on one thread with
BM25Weight(k1=0.9, b=0.4) and the project's query weights, and prints
queries/s, p50/p99 and the mean top-k overlap with the project.

Usage: python3 xapian_bm25.py DIR [k]
"""

import json
import os
import shutil
import sys
import time

import xapian

K1, B = 0.9, 0.4


def main():
    d = sys.argv[1]
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    db_path = os.path.join(d, "xapian.db")
    shutil.rmtree(db_path, ignore_errors=True)
    db = xapian.WritableDatabase(db_path, xapian.DB_CREATE_OR_OVERWRITE)
    ids = []
    with open(os.path.join(d, "passages.jsonl")) as f:
        for line in f:
            p = json.loads(line)
            doc = xapian.Document()
            counts = {}
            for t in p["tokens"]:
                counts[t] = counts.get(t, 0) + 1
            for t, n in counts.items():
                if len(t.encode()) <= 240:
                    doc.add_term(t, n)
            doc.set_data(p["id"])
            db.add_document(doc)
            ids.append(p["id"])
    db.commit()
    db.close()

    db = xapian.Database(db_path)
    enq = xapian.Enquire(db)
    # k1, k2, k3, b, min_normlen: min_normlen 0 so short passages are not
    # treated as half the average length.
    enq.set_weighting_scheme(xapian.BM25Weight(K1, 0, 1, B, 0))
    queries = []
    with open(os.path.join(d, "queries.jsonl")) as f:
        for line in f:
            q = json.loads(line)
            subs = [xapian.Query(xapian.Query.OP_SCALE_WEIGHT, xapian.Query(t["term"]), t["weight"])
                    for t in (q["terms"] or []) if len(t["term"].encode()) <= 240]
            queries.append(xapian.Query(xapian.Query.OP_OR, subs) if subs else None)
    results = []
    lat = []
    began = time.perf_counter()
    for q in queries:
        t = time.perf_counter()
        hits = []
        if q is not None:
            enq.set_query(q)
            for m in enq.get_mset(0, k):
                hits.append(m.document.get_data().decode())
        lat.append(time.perf_counter() - t)
        results.append(hits)
    total = time.perf_counter() - began
    lat.sort()

    def pct(p):
        return lat[int(p * (len(lat) - 1))] * 1000

    project = []
    with open(os.path.join(d, "project.jsonl")) as f:
        for line in f:
            project.append(json.loads(line)["ids"] or [])
    overlap, n = 0.0, 0
    for a, b in zip(project, results):
        if not a and not b:
            continue
        overlap += len(set(a) & set(b)) / max(len(a), len(b))
        n += 1
    print("xapian %s BM25Weight(k1=%.1f, b=%.1f), %d queries, top %d, one thread: "
          "%.0f queries/s, p50 %.2f ms, p99 %.2f ms; top-%d agreement with the project %.3f"
          % (xapian.version_string(), K1, B, len(queries), k, len(queries) / total,
             pct(0.5), pct(0.99), k, overlap / max(n, 1)))


if __name__ == "__main__":
    main()
