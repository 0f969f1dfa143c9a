// Package jsonl owns the reading of JSON Lines input that every format of
// the project shares — corpus documents and spans, claims, gold labels,
// model outputs: a streaming line reader (BOM, CRLF, blank lines, lines of
// hundreds of MiB, bounded memory), one-level record parsing that remembers
// the byte column of every member, typed member accessors, and the
// positioned error list.
//
// A defect prints as
//
//	file:line:col: field: message
//
// with 1-based lines and byte columns, as in go/scanner. Defects are
// collected into an ErrorList rather than stopping at the first; it keeps the
// first Limit in full and counts all of them, and unwraps to each, so callers
// use errors.Is(err, jsonl.ErrDuplicateID) and the like.
//
// It exists as its own package (DESIGN.md lists only the domain packages)
// so that corpus and claims, which are siblings, need not import each other
// for a format concern.
package jsonl
