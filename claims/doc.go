// Package claims owns the atomic-claim schema (seed 003 §1 plus type,
// importance, cite and an optional gold label), claim and gold-label JSONL
// reading and validation (Load, Validator, Scan), and the shard a claim
// belongs to (ShardOf).
//
// What claims are made of and done with lives beside it, dependencies
// pointing one way: numeric (numbers, units, comparators, policies) ←
// extract (model outputs → claims) ← lint (facts, matching, lint,
// softening). This package imports none of them.
package claims
