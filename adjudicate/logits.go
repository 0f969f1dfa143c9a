package adjudicate

import (
	"errors"
	"fmt"
	"math"
)

// MaxLogit bounds the magnitude of a logit a verifier may return. Real
// models give logits within ±100 and log-probabilities above -1e4; a larger
// value is a broken model or server (an overflow printed as 1e300, a
// float32 that became ±Inf). Within the bound, softmax at every temperature
// a run may use (0.05 to 20) is finite.
const MaxLogit = 1e6

// The checks of logits and log-probabilities. Every error CheckLogits,
// CheckLogprob and the scheduler return for them matches ErrInvalidLogits
// and exactly one of the three kinds below with errors.Is. A claim whose
// verifier answer fails them gets that error (its record's error field,
// no label, no logits); a caller may re-verify exactly those claims with
// another verifier by testing errors.Is(err, ErrInvalidLogits).
var (
	// ErrInvalidLogits is any of the three below.
	ErrInvalidLogits = errors.New("verifier returned invalid logits")
	// ErrNonFiniteLogits: a logit or log-probability is NaN or ±Inf.
	ErrNonFiniteLogits = errors.New("logits are NaN or infinite")
	// ErrLogitOutOfRange: a logit's magnitude exceeds MaxLogit.
	ErrLogitOutOfRange = errors.New("logit out of range")
	// ErrPositiveLogprob: a log-probability is above 0 (a probability
	// above 1).
	ErrPositiveLogprob = errors.New("log-probability above 0")
)

// LogitsError is a failed check of one verdict's logits or one
// log-probability: Kind is ErrNonFiniteLogits, ErrLogitOutOfRange or
// ErrPositiveLogprob.
type LogitsError struct {
	Kind   error
	Values []float64 // the offending logits or log-probability
	What   string    // "logits", "logprob", with the pair when known
}

func (e *LogitsError) Error() string {
	return fmt.Sprintf("%s: %s %v", ErrInvalidLogits, e.What, e.Values) + ": " + e.Kind.Error()
}

// Is matches ErrInvalidLogits and the error's own kind.
func (e *LogitsError) Is(target error) bool { return target == ErrInvalidLogits || target == e.Kind }

// CheckLogits is the one check of a verifier's logits, applied to every
// pair a cross-encoder scores (Strongest) and to every verdict the
// scheduler emits: each logit finite and within ±MaxLogit.
func CheckLogits(z [3]float64) error {
	for _, v := range z {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return &LogitsError{Kind: ErrNonFiniteLogits, Values: z[:], What: "logits"}
		case math.Abs(v) > MaxLogit:
			return &LogitsError{Kind: ErrLogitOutOfRange, Values: z[:], What: "logits"}
		}
	}
	return nil
}

// LogprobSlack is how far above 0 a server's log-probability may round
// (float32 arithmetic gives 1e-7 for a certain token); such a value reads
// as 0.
const LogprobSlack = 1e-6

// CheckLogprob is the one check of a log-probability a verifier reads from
// a server: finite, within ±MaxLogit, and at most 0 (up to LogprobSlack). It
// returns the value to use (clamped to 0 within the slack).
func CheckLogprob(lp float64) (float64, error) {
	switch {
	case math.IsNaN(lp) || math.IsInf(lp, 0):
		return 0, &LogitsError{Kind: ErrNonFiniteLogits, Values: []float64{lp}, What: "logprob"}
	case lp > LogprobSlack:
		return 0, &LogitsError{Kind: ErrPositiveLogprob, Values: []float64{lp}, What: "logprob"}
	case lp < -MaxLogit:
		return 0, &LogitsError{Kind: ErrLogitOutOfRange, Values: []float64{lp}, What: "logprob"}
	}
	return math.Min(lp, 0), nil
}
