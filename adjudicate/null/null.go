package null

import (
	"context"
	"flag"

	"github.com/claimaudit/claimaudit/adjudicate"
)

// Logits are what every pair gets: equal, so each class has probability
// 1/3 at any temperature, and the label is the first class of the tie
// (supported). Constant by design: see the package comment.
var Logits = [3]float64{0, 0, 0}

// Rationale says, in every record, what made the verdict.
const Rationale = "null verifier: constant logits for pipeline benchmarks, not a verdict"

// batchSize is large: verdicts cost nothing, so batches only amortise the
// scheduler's per-call overhead.
const batchSize = 256

// Backend is the "null" entry of the verifier list.
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "null",
		Help: "benchmark tool: constant logits for every claim, to measure the pipeline's own throughput; its labels are not verdicts",
		Configure: func(*flag.FlagSet) adjudicate.Factory {
			return func(adjudicate.Env) (adjudicate.Verifier, error) { return Verifier{}, nil }
		},
	}
}

// Verifier gives every pair Logits.
type Verifier struct{}

// Strength implements adjudicate.PassageScorer (the cascade's exit reads
// passages in rounds by it): the larger of p(supported), p(unsupported).
func (Verifier) Strength(p [3]float64) float64 { return adjudicate.EvidenceEitherWay(p) }

// Verify returns one constant verdict per pair.
func (Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]adjudicate.Verdict, len(batch))
	for i := range out {
		out[i] = adjudicate.Verdict{Logits: Logits, Passage: -1, Rationale: Rationale}
	}
	return out, nil
}

// PreferredBatchSize is batchSize.
func (Verifier) PreferredBatchSize() int { return batchSize }

// Version keys the verdict cache.
func (Verifier) Version() string { return "null-1" }
