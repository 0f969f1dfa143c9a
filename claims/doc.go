// Package claims owns the atomic-claim schema (seed 003 §1 plus type,
// importance, cite and an optional gold label), claim and gold-label JSONL
// reading and validation, rule-based claim extraction from model outputs,
// numeric parsing, and the numeric verification policies of seed 000 (exact,
// rounded, abbr, tolerance, percent, range, ratio, year, auto) with seed 001's
// fact matching.
//
// Not yet implemented: see the claims issue.
package claims
