"""Xapian's index build on the passages the project indexes, for comparison
of the build's CPU with `audit index`.

Reads passages.jsonl written by `go run ./bench/retrieval -export` (id,
text, doc_id, span_id and the project's analysed tokens) and builds a Xapian
glass database of them, as the project's index holds them: the text
searchable (no positions, as the project keeps no term vectors) and stored
with the passage's provenance, the passage, document and span ids as
boolean terms. Two ways:

  text    Xapian analyses the text itself: TermGenerator with the English
          (Porter 2) stemmer, every term stemmed (STEM_ALL) as the
          project's analyzer stems every term.
  tokens  the project's analysed terms are indexed as they are (the
          analysis left out of Xapian's side).

Prints the process's CPU seconds (user + system, from getrusage) for
reading the file and for the build (add_document through commit), and the
passages indexed.

Usage: python3 xapian_index.py DIR [text|tokens]
"""

import json
import os
import resource
import shutil
import sys

import xapian


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    d = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "text"
    if mode not in ("text", "tokens"):
        sys.exit("mode must be text or tokens")
    t0 = cpu()
    with open(os.path.join(d, "passages.jsonl")) as f:
        passages = [json.loads(line) for line in f]
    t1 = cpu()
    db_path = os.path.join(d, "xapian-" + mode + ".db")
    shutil.rmtree(db_path, ignore_errors=True)
    db = xapian.WritableDatabase(db_path, xapian.DB_CREATE_OR_OVERWRITE)
    tg = xapian.TermGenerator()
    tg.set_stemmer(xapian.Stem("english"))
    tg.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
    for p in passages:
        doc = xapian.Document()
        if mode == "text":
            tg.set_document(doc)
            tg.index_text_without_positions(p["text"])
        else:
            counts = {}
            for t in p["tokens"]:
                counts[t] = counts.get(t, 0) + 1
            for t, n in counts.items():
                if len(t.encode()) <= 240:
                    doc.add_term(t, n)
        for prefix, key in (("Q", "id"), ("D", "doc_id"), ("S", "span_id")):
            if p.get(key):
                doc.add_boolean_term(prefix + p[key])
        doc.set_data(json.dumps({"text": p["text"], "doc_id": p["doc_id"], "span_id": p.get("span_id")}))
        db.add_document(doc)
    db.commit()
    db.close()
    t2 = cpu()
    print(f"xapian {xapian.version_string()} {mode}: {len(passages)} passages, "
          f"read {t1 - t0:.2f} CPU-s, build {t2 - t1:.2f} CPU-s, total {t2 - t0:.2f} CPU-s")


if __name__ == "__main__":
    main()
