// Package extract turns model outputs into atomic claims (seed 002 §3):
// sentence segmentation, filtering of what is not a factual assertion
// (questions, imperatives, opinions, hedged and contextual sentences),
// splitting of compound sentences, pronoun resolution, typing (numeric,
// temporal, policy, definitional, fact) and importance. Extract works on one
// output; ReadOutputs and ExtractFile on a JSONL file of outputs (see
// docs/format/claims.md).
//
// It also exports the word tests other packages match claims with
// (ContentWords, IsVerb, IsClauseStarter).
package extract
