// Package claims owns the atomic-claim schema (seed 003 §1 plus type,
// importance, cite and an optional gold label), claim and gold-label JSONL
// reading and validation, rule-based claim extraction from model outputs,
// numeric parsing, and the numeric verification policies of seed 000 (exact,
// rounded, abbr, tolerance, percent, range, ratio, year, auto) with seed 001's
// fact matching.
//
// Numbers: ParseQuantity reads "5.7", "1.5K", "2 million", "12%", "85-95%",
// "$29", "3x", "2021-07-01", "one third" and the like; Check applies a
// policy and fails closed. Extraction: Extract and ExtractFile turn model
// outputs into claims (see docs/format/claims.md). Comparators: a number
// carries what the text says about it ("more than", "up to", "nearly",
// "between", "about", negated by "not"), and Quantity.Holds decides a bound
// by the bound, never by a tolerance. Matching: FactsFromText and
// VerifyNumeric give seed 001's verified / mismatch / unverifiable, with a
// fact required to agree on year, unit and entity. Linting (seed 001's
// linter and softener): NumericClaims, VerifyClaim (adds outdated), Lint,
// Soften, ReadFacts (docs/format/facts.md). NumericDecision combines a
// verifier's label with the numeric check under an effect (none, flag,
// override).
package claims
