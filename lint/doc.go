// Package lint is seed 001: known facts, fact matching, the numeric linter
// and the softener.
//
// Facts: FactsFromText takes the numbers of a passage as facts, ReadFacts a
// facts file (docs/format/facts.md). Matching: VerifyNumeric and
// VerifyMention give seed 001's verified / mismatch / unverifiable, with a
// fact required to agree on year, unit and entity; MatchOptions.Policy picks
// a policy of package numeric to compare values. Linting: NumericClaims,
// VerifyClaim (adds outdated), Lint, Soften. DecideNumeric combines a
// verifier's label with the numeric check under an effect (none, flag,
// override).
package lint
