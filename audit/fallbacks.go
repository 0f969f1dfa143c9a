package audit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/reports"
)

// Verifier failure fallbacks (issue 45, item 11): a verification call
// slower than --verify-timeout skips its claims (and, with outputs, the
// whole output's), which abstain with the reason verify_timeout; a claim
// whose best passage scores under --min-retrieval-score is, under
// --weak-retrieval insufficient, decided insufficient rather than
// abstained; a verifier whose own labels are one label for at least
// DegenerateShare of DegenerateMinClaims or more answered claims is
// degenerate: the run says its decisions are disabled and fails
// (ErrDegenerateVerifier) unless AllowDegenerateVerifier.

// ReasonTimeout is the abstain reason of a claim skipped because its
// verification call (or another of its output's) was slower than
// Options.VerifyTimeout.
const ReasonTimeout = "verify_timeout"

// timeoutPrefix opens the error column of a claim whose verification
// call timed out: the one mark of it that travels through the spool.
const timeoutPrefix = ReasonTimeout + ": "

// isTimeout says whether a verified claim's error is a timeout.
func isTimeout(err string) bool { return strings.HasPrefix(err, timeoutPrefix) }

// Weak-retrieval policies (--weak-retrieval): a claim whose best uncited
// passage scores under --min-retrieval-score abstains (the default), or is
// decided insufficient (decided_by weak_retrieval, flag weak_retrieval).
const (
	WeakRetrievalAbstain      = "abstain"
	WeakRetrievalInsufficient = "insufficient"
)

// DecidedByWeakRetrieval is decided_by of a claim decided insufficient
// under --weak-retrieval insufficient.
const DecidedByWeakRetrieval = "weak_retrieval"

// Degenerate verifier: one label for at least DegenerateShare of at least
// DegenerateMinClaims answered claims (its own labels at T = 1).
const DegenerateShare = 0.99

// ErrDegenerateVerifier fails a run whose verifier is degenerate (unless
// Options.AllowDegenerateVerifier); the records and reports are written
// all the same.
var ErrDegenerateVerifier = errors.New("the verifier is degenerate: disabled for decisions")

// timedOut handles a claim whose verification call was slower than the
// bound: its error says so (not an adjudication error: it does not count
// towards --max-error-rate) and the run logs it; with outputs, its output
// is skipped as a whole.
func (o *Options) timedOut(s *verified, err error, res *Result) {
	s.Err = timeoutPrefix + o.red.Redact(err.Error())
	s.Verdict = adjudicate.Verdict{Passage: -1}
	res.TimedOut++
	if _, ok := o.outputIndex()[s.Claim.SourceID]; ok {
		if o.timedOutOutputs == nil {
			o.timedOutOutputs = map[string]bool{}
		}
		o.timedOutOutputs[s.Claim.SourceID] = true
	}
	o.Log.Warn("claim skipped: its verification call was slower than --verify-timeout", "claim", s.Claim.ID,
		"output", s.Claim.SourceID, "bound", o.VerifyTimeout, "err", err)
}

// skippedOutput says whether the claim's output was skipped: another of
// its claims' verification call timed out.
func (o *Options) skippedOutput(v verified) bool {
	return o.timedOutOutputs[v.Claim.SourceID]
}

// withWeakRetrieval decides insufficient a claim abstained for weak
// retrieval, under --weak-retrieval insufficient: retrieval found nothing
// relevant, which is what insufficient says (flag weak_retrieval).
func (o *Options) withWeakRetrieval(d decision) decision {
	if d.reason != ReasonWeakRetrieval || o.WeakRetrieval != WeakRetrievalInsufficient {
		return d
	}
	d.reason, d.pred, d.rule = "", metrics.Insufficient, DecidedByWeakRetrieval
	d.flags = append(d.flags, FlagWeakRetrieval)
	return d
}

// degenerateVerifier says whether the verifier's own labels (at T = 1,
// before any rule) are one label for at least DegenerateShare of at least
// DegenerateMinClaims answered claims, and which.
func degenerateVerifier(prelim []metrics.Score) (string, int, int, bool) {
	var counts [3]int
	answered := 0
	for _, s := range prelim {
		if s.Abstained || !s.Scored {
			continue
		}
		answered++
		if c := int(s.Predicted); c >= 0 && c < 3 {
			counts[c]++
		}
	}
	for c, n := range counts {
		if answered >= DegenerateMinClaims && float64(n) >= DegenerateShare*float64(answered) {
			return metrics.Class(c).String(), n, answered, true
		}
	}
	return "", 0, answered, false
}

// DegenerateWarning is the line that says the verifier is disabled for
// decisions.
func DegenerateWarning(label string, n, answered int, allowed bool) string {
	tail := "the run fails (exit 3); --allow-degenerate-verifier keeps it going"
	if allowed {
		tail = "kept going by --allow-degenerate-verifier"
	}
	return fmt.Sprintf("the verifier is disabled for decisions: it labels %d of %d answered claims %s (at least %.0f%% of %d or more is degenerate), so its labels say nothing about the claims; %s",
		n, answered, label, 100*DegenerateShare, DegenerateMinClaims, tail)
}

// fallbackNotes are summary.json's warnings of the fallbacks: the claims
// skipped for a slow verification call, and a degenerate verifier.
func (o *Options) fallbackNotes(res *Result) []string {
	var w []string
	if res.TimedOut > 0 {
		w = append(w, fmt.Sprintf("%d claims were skipped: their verification call was slower than --verify-timeout %s (abstain_reason verify_timeout)%s",
			res.TimedOut, o.VerifyTimeout, outputsNote(len(o.timedOutOutputs))))
	}
	if o.degenerate != "" {
		w = append(w, o.degenerate)
	}
	return w
}

func outputsNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; with them every claim of their %d outputs", n)
}

// weakRetrievalDecided says whether --weak-retrieval insufficient decided
// the record (a shard's, re-decided over all the shards).
func weakRetrievalDecided(r reports.Record) bool {
	return r.DecidedBy != nil && *r.DecidedBy == DecidedByWeakRetrieval
}

// failed is the error of a run that wrote its files but fails: too many
// adjudication errors, or a degenerate verifier not allowed.
func (o *Options) failed(res *Result) error {
	if res.Records > 0 && float64(res.Errors) > o.MaxErrorRate*float64(res.Records) {
		return fmt.Errorf("%w: %d of %d (bound %.1f%%); see the error column of records.parquet",
			ErrTooManyErrors, res.Errors, res.Records, 100*o.MaxErrorRate)
	}
	if o.degenerate != "" && !o.AllowDegenerateVerifier {
		return fmt.Errorf("%w (summary.json's warnings say why; --allow-degenerate-verifier keeps the run going)", ErrDegenerateVerifier)
	}
	return nil
}
