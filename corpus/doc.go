// Package corpus owns the curated reference corpus: the Document and Span
// types, streaming JSONL reading with positioned errors, validation of every
// rule in DESIGN.md "Formats", passage building (evidence spans plus sentence
// windows that cover every document), the bleve BM25 index on disk and
// retrieval from it.
//
// Input defects are collected, not fatal: Load and Validator report all of
// them as a *jsonl.ErrorList of *jsonl.ParseError values, each printing as
//
//	corpus.jsonl:12:7: doc_id: duplicate doc_id "d1" (first defined at corpus.jsonl:3)
//
// Columns are 1-based byte offsets within the line, as in go/scanner. Span
// offsets are Unicode code points, half-open.
//
// An index folder holds manifest.json (the inputs' sha256, mapping version,
// passage settings and counts; see docs/format/index.md) and the bleve index
// under bleve/. EnsureIndex reuses an index whose manifest matches its
// inputs and rebuilds it otherwise; builds go to a temporary sibling folder
// that is renamed into place, so a half-built index is never opened.
package corpus
