package cascade

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
)

// BandFile is the band file's name inside a model folder: the default
// --cascade-band when the second verifier's --model names a folder that
// has one.
const BandFile = "cascade.json"

// Verifier is the cascade: First decides the claims outside the band,
// Second the rest (each reading at most Passages passages; 0: all). With
// Exit > 0 the second verifier reads a claim's passages in rounds: up to
// ExitAfter[0] passages first (default: the first passage alone), then up
// to ExitAfter[1], and so on, then the rest; after each round a claim whose
// strongest evidence so far (the larger of p(supported) and
// p(unsupported)) reaches Exit is decided and reads no further. A claim
// that reads every passage gets the verdict of reading them together.
type Verifier struct {
	First, Second         adjudicate.Verifier
	FirstName, SecondName string
	Band                  Band
	Passages              int
	Exit                  float64
	ExitAfter             []int
}

// Backend is the "cascade" entry of the verifier list. Its verifiers are
// other backends, made from their own options (Env.Verifier).
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "cascade",
		Help: "the lexical verifier decides the claims it is sure of, another backend (--cascade-to) the rest, within a fitted band (--cascade-band; audit cascade fit)",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			to := fs.String("cascade-to", "onnx", "cascade: the backend that decides the claims the lexical verifier is unsure of (its own options apply)")
			bandPath := fs.String("cascade-band", "", "cascade: band file from 'audit cascade fit' (default: cascade.json in --model's folder); 'all' sends every claim, 'none' none")
			fs.String("model", "", "cascade: its cascade.json is the default --cascade-band")
			passages := fs.Int("cascade-passages", -1, "cascade: passages per claim the second backend reads, best first (0: all; -1: the band file's)")
			exit := fs.Float64("cascade-exit", -1, "cascade: the second backend reads a claim's passages in rounds (--cascade-exit-after) and stops once its p(supported) or p(unsupported) is at least this (0: every passage read at once; -1: the band file's)")
			after := fs.String("cascade-exit-after", "", "cascade: comma-separated passage counts after which the exit is checked, ascending, e.g. 1,2,3,4 (default: the band file's, or 1)")
			return func(env adjudicate.Env) (adjudicate.Verifier, error) {
				return build(env, *to, *bandPath, *passages, *exit, *after, fs)
			}
		},
		Uses: func(fs *flag.FlagSet) []string {
			return []string{"lexical", fs.Lookup("cascade-to").Value.String()}
		},
	}
}

func build(env adjudicate.Env, to, bandPath string, passages int, exit float64, after string, fs *flag.FlagSet) (adjudicate.Verifier, error) {
	if to == "cascade" || to == "lexical" {
		return nil, fmt.Errorf("cascade: --cascade-to %s: name the backend of the model (onnx, triton, tei, openai)", to)
	}
	if env.Verifier == nil {
		return nil, errors.New("cascade: this program gives backends no other backends")
	}
	band, err := bandOf(bandPath, fs)
	if err != nil {
		return nil, err
	}
	if passages < -1 {
		return nil, fmt.Errorf("cascade: --cascade-passages %d: want 0 (all), a number of passages, or -1 (the band file's)", passages)
	}
	if passages == -1 {
		passages = band.Passages
	}
	if exit == -1 {
		exit = band.Exit
	}
	if math.IsNaN(exit) || exit < 0 || exit > 1 {
		return nil, fmt.Errorf("cascade: --cascade-exit %g: want a probability in [0, 1] (0: every passage read), or -1 (the band file's)", exit)
	}
	checks := band.ExitAfter
	if after != "" {
		checks = nil
		for _, f := range strings.Split(after, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return nil, fmt.Errorf("cascade: --cascade-exit-after %q: %q is not a whole number", after, f)
			}
			checks = append(checks, n)
		}
	}
	if err := checkExitAfter(checks); err != nil {
		return nil, fmt.Errorf("cascade: --cascade-exit-after %q: %w", after, err)
	}
	if after != "" && exit == 0 {
		return nil, fmt.Errorf("cascade: --cascade-exit-after %q: there is no exit to check (--cascade-exit 0, or the band file's exit is 0)", after)
	}
	first, err := env.Verifier("lexical")
	if err != nil {
		return nil, err
	}
	second, err := env.Verifier(to)
	if err != nil {
		closeIf(first)
		return nil, err
	}
	if _, ok := second.(adjudicate.PassageScorer); exit > 0 && !ok {
		closeIf(first)
		closeIf(second)
		return nil, fmt.Errorf("cascade: an exit (--cascade-exit %g) needs a backend that scores each passage on its own and decides by the strongest (onnx, tei, triton); %s reads a claim's passages together", exit, to)
	}
	return &Verifier{First: first, Second: second, FirstName: "lexical", SecondName: to, Band: band, Passages: passages, Exit: exit, ExitAfter: checks}, nil
}

// bandOf reads the band file named, or the model folder's.
func bandOf(path string, fs *flag.FlagSet) (Band, error) {
	switch path {
	case "all":
		return Everything, nil
	case "none":
		return Band{Version: BandVersion, Low: 0, High: 0}, nil
	case "":
		m := fs.Lookup("model")
		if m == nil || m.Value.String() == "" {
			return Band{}, errors.New("cascade: --cascade-band FILE is required (audit cascade fit writes one), or 'all' / 'none'")
		}
		path = filepath.Join(m.Value.String(), BandFile)
	}
	return ReadBand(path)
}

func closeIf(v adjudicate.Verifier) {
	if c, ok := v.(io.Closer); ok {
		c.Close()
	}
}

// Close closes both verifiers.
func (v *Verifier) Close() error {
	var errs []error
	for _, x := range []adjudicate.Verifier{v.First, v.Second} {
		if c, ok := x.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Version keys the verdict cache: both verifiers, the band, m and the
// exit.
func (v *Verifier) Version() string {
	s := fmt.Sprintf("cascade/%s+%s/band=%g,%g/m=%d", versionOf(v.First, v.FirstName), versionOf(v.Second, v.SecondName), v.Band.Low, v.Band.High, v.Passages)
	if v.Exit > 0 {
		s += fmt.Sprintf("/exit=%g@%v", v.Exit, v.checks())
	}
	return s
}

func versionOf(x adjudicate.Verifier, name string) string {
	if ver, ok := x.(adjudicate.Versioner); ok {
		return ver.Version()
	}
	return name
}

// PreferredBatchSize is the second verifier's batch over the share of
// claims it gets (a quarter, as fitted on the real sets), at least the
// first's: the model then runs batches of about its own size.
func (v *Verifier) PreferredBatchSize() int {
	n := 64
	if b, ok := v.First.(adjudicate.BatchSizer); ok {
		n = b.PreferredBatchSize()
	}
	if b, ok := v.Second.(adjudicate.BatchSizer); ok {
		n = max(n, 4*b.PreferredBatchSize())
	}
	return n
}

// PreferredWorkers is the larger of the two verifiers' preferences
// (adjudicate.WorkerSizer), at least one.
func (v *Verifier) PreferredWorkers() int {
	return max(1, adjudicate.PreferredWorkers(v.First), adjudicate.PreferredWorkers(v.Second))
}

// Verify decides a batch: the first verifier every claim, the second the
// claims inside the band.
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	return v.Prepare(ctx, batch)(ctx)
}

// Prepare runs the first verifier and the second's preparation (when it
// has one: tokenising), and returns the second's call.
func (v *Verifier) Prepare(ctx context.Context, batch []adjudicate.Pair) func(context.Context) ([]adjudicate.Verdict, error) {
	var first []adjudicate.Verdict
	var err error
	all := v.Band.SendsAll()
	if all {
		first = make([]adjudicate.Verdict, len(batch)) // each replaced by the second's
	} else {
		first, err = v.First.Verify(ctx, batch)
	}
	if err == nil && len(first) != len(batch) {
		err = fmt.Errorf("cascade: %s gave %d verdicts for %d claims", v.FirstName, len(first), len(batch))
	}
	if err != nil {
		return func(context.Context) ([]adjudicate.Verdict, error) { return nil, err }
	}
	var sent []int
	var sub []adjudicate.Pair
	for i := range batch {
		first[i].DecidedBy = v.FirstName
		if all || first[i].Err != nil || v.Band.Sends(adjudicate.Probabilities(first[i].Logits)[adjudicate.Supported]) {
			sent = append(sent, i)
			sub = append(sub, v.truncate(batch[i]))
		}
	}
	if len(sub) == 0 {
		return func(context.Context) ([]adjudicate.Verdict, error) { return first, nil }
	}
	call := v.prepareSecond(ctx, v.firstPassages(sub))
	return func(ctx context.Context) ([]adjudicate.Verdict, error) {
		second, err := call(ctx)
		if err == nil && len(second) != len(sub) {
			err = fmt.Errorf("cascade: %s gave %d verdicts for %d claims", v.SecondName, len(second), len(sub))
		}
		if err == nil && v.Exit > 0 {
			err = v.readTheRest(ctx, sub, second)
		}
		if err != nil {
			return nil, err
		}
		out := make([]adjudicate.Verdict, len(first))
		copy(out, first)
		for j, i := range sent {
			out[i] = second[j]
			out[i].DecidedBy = v.SecondName
		}
		return out, nil
	}
}

// prepareSecond is the second verifier's call on pairs, prepared ahead
// when it can be.
func (v *Verifier) prepareSecond(ctx context.Context, pairs []adjudicate.Pair) func(context.Context) ([]adjudicate.Verdict, error) {
	if p, ok := v.Second.(adjudicate.Preparer); ok {
		return p.Prepare(ctx, pairs)
	}
	return func(ctx context.Context) ([]adjudicate.Verdict, error) { return v.Second.Verify(ctx, pairs) }
}

// strength is the second verifier's rule for ranking a claim's passages
// (adjudicate.PassageScorer); the larger of p(supported), p(unsupported)
// when it states none.
func (v *Verifier) strength(p [3]float64) float64 {
	if ps, ok := v.Second.(adjudicate.PassageScorer); ok {
		return ps.Strength(p)
	}
	return adjudicate.EvidenceEitherWay(p)
}

// checks are the passage counts after which the exit is checked: ExitAfter,
// or the first passage alone when it names none.
func (v *Verifier) checks() []int {
	if len(v.ExitAfter) == 0 {
		return []int{1}
	}
	return v.ExitAfter
}

// firstPassages is the first round of the second verifier with an exit:
// each claim with its passages up to the first check (a claim with none as
// it is). Without an exit, the claims as they are.
func (v *Verifier) firstPassages(sub []adjudicate.Pair) []adjudicate.Pair {
	if v.Exit <= 0 {
		return sub
	}
	upto := v.checks()[0]
	out := make([]adjudicate.Pair, len(sub))
	for i, p := range sub {
		if len(p.Passages) > upto {
			p.Passages = p.Passages[:upto]
		}
		out[i] = p
	}
	return out
}

// readTheRest runs the rounds after the first: after each check, the claims
// whose strongest evidence so far is weaker than Exit are scored on their
// next passages (up to the next check, then the rest), and each keeps the
// strongest verdict of the rounds (the earlier one on a tie, as when the
// passages are read together: the first strongest passage wins). best,
// the first round's verdicts, is updated in place.
func (v *Verifier) readTheRest(ctx context.Context, sub []adjudicate.Pair, best []adjudicate.Verdict) error {
	checks := v.checks()
	open := make([]bool, len(sub))
	for j := range sub {
		open[j] = best[j].Err == nil
	}
	for c, from := range checks {
		to := math.MaxInt
		if c+1 < len(checks) {
			to = checks[c+1]
		}
		var again []int
		var next []adjudicate.Pair
		for j, p := range sub {
			if !open[j] || len(p.Passages) <= from {
				continue
			}
			if s := v.strength(adjudicate.Probabilities(best[j].Logits)); s >= v.Exit {
				best[j].Rationale += fmt.Sprintf("; decided on %s of %d passages (evidence %.3g ≥ exit %.3g)", firstN(from), len(p.Passages), s, v.Exit)
				open[j] = false
				continue
			}
			p.Passages = p.Passages[from:min(to, len(p.Passages))]
			again = append(again, j)
			next = append(next, p)
		}
		if len(next) == 0 {
			return nil
		}
		round, err := v.Second.Verify(ctx, next)
		if err != nil {
			return err
		}
		if len(round) != len(next) {
			return fmt.Errorf("cascade: %s gave %d verdicts for %d claims", v.SecondName, len(round), len(next))
		}
		for k, j := range again {
			best[j] = merge(best[j], round[k], from, from+len(next[k].Passages), v.strength)
			open[j] = best[j].Err == nil
		}
	}
	return nil
}

// span names passages lo to hi (counted from 1).
func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("passage %d", lo)
	}
	return fmt.Sprintf("passages %d to %d", lo, hi)
}

// firstN names a claim's first n passages.
func firstN(n int) string {
	if n == 1 {
		return "the first"
	}
	return fmt.Sprintf("the first %d", n)
}

// merge joins a claim's verdict on its first passages (a, read up to
// passage from) with its verdict on passages from+1 to to (b, whose
// passage indices start at from): the stronger decides, a on a tie.
func merge(a, b adjudicate.Verdict, from, to int, strength func([3]float64) float64) adjudicate.Verdict {
	if b.Err != nil {
		return adjudicate.Verdict{Passage: -1, Err: fmt.Errorf("%s (counted within them): %w", span(from+1, to), b.Err)}
	}
	sa := strength(adjudicate.Probabilities(a.Logits))
	sb := strength(adjudicate.Probabilities(b.Logits))
	out := a
	if sb > sa {
		out = b
		if out.Passage >= 0 {
			out.Passage += from
		}
	}
	out.Rationale += fmt.Sprintf("; %s read (the evidence of %s, %.3g, was below the exit)", span(from+1, to), firstN(from), sa)
	out.Usage = adjudicate.Usage{
		PromptTokens:     a.Usage.PromptTokens + b.Usage.PromptTokens,
		CompletionTokens: a.Usage.CompletionTokens + b.Usage.CompletionTokens,
		Calls:            a.Usage.Calls + b.Usage.Calls,
		Retries:          a.Usage.Retries + b.Usage.Retries,
	}
	out.PassageLogits = nil
	if a.PassageLogits != nil && b.PassageLogits != nil {
		out.PassageLogits = append(append([][3]float64{}, a.PassageLogits...), b.PassageLogits...)
	}
	return out
}

// truncate keeps a claim's first Passages passages for the second verifier.
func (v *Verifier) truncate(p adjudicate.Pair) adjudicate.Pair {
	if v.Passages > 0 && len(p.Passages) > v.Passages {
		p.Passages = p.Passages[:v.Passages]
	}
	return p
}
