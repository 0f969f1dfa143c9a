// Package adjudicate owns the Verifier contract — Verify(ctx, []Pair)
// ([]Verdict, error) with three raw logits per claim — its optional abilities
// as small separate interfaces, the batch scheduler (size, max wait,
// workers, input order kept, transient retries, invalid logits turned into
// per-claim errors) and the explicit list of backends. CheckLogits and
// CheckLogprob are the one validation of every backend's numbers: a claim
// whose logits are NaN, infinite or beyond ±MaxLogit, or whose server gave
// a log-probability above 0, gets an error matching ErrInvalidLogits (and
// ErrNonFiniteLogits, ErrLogitOutOfRange or ErrPositiveLogprob) before
// anything is decided, cached or spooled. Each backend lives in
// its own sub-package (adjudicate/lexical, adjudicate/onnx) and imports this
// one, never the reverse; adjudicate/adjudicatetest is the conformance suite
// every backend's tests run.
//
// Schedule is the batch scheduler; Registry the explicit backend list (the
// CLI builds it in one place); adjudicatetest.Run the conformance suite.
package adjudicate
