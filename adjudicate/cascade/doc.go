// Package cascade is a verifier made of two: a cheap first verifier (the
// lexical one) decides the claims it is sure of, and a second, costly one
// (any backend: onnx, triton, tei, openai) decides the rest.
//
// "Sure" is a band on the first verifier's p(supported) (softmax of its raw
// logits): a claim whose p(supported) lies strictly inside (Low, High) goes
// to the second verifier; at or outside the band the first verifier's
// verdict stands. The band is fitted, not guessed (Fit): on labelled sets,
// the band (and exit, below) that keeps the cascade's balanced accuracy
// (supported against not) within a tolerance of the second verifier's
// alone while sending it the fewest (claim, passage) pairs. It is written
// to a band file
// (band.json, docs/format/cascade.md) that `audit cascade fit` produces and
// `audit run --verifier cascade --cascade-band FILE` reads.
//
// The second verifier may score only a claim's first m passages (the band
// file's passages, or --cascade-passages): a pair model's cost grows with
// the passages it reads. Each verdict says which verifier decided it
// (adjudicate.Verdict.DecidedBy), which the records keep as decided_by
// verifier:<backend>. A claim's verdict depends only on the claim: the
// first verifier decides it alone, and the second sees it in a batch whose
// other claims cannot change it (every backend's contract), so verdicts
// do not depend on the batch size.
//
// The exit: with a second verifier that scores each passage on its own
// (adjudicate.PassageScorer), the cascade can have it read a claim's
// passages in rounds — the first alone, or up to each count of ExitAfter —
// and stop once the strongest evidence so far reaches Exit. A claim that
// reads every passage gets the verdict of reading them at once. Fit
// chooses the exit from runs of the second verifier on each claim's first
// 1, 2, … passages (Claim.Prefixes), whose verdicts are exactly what the
// rounds hold.
package cascade
