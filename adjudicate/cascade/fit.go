package cascade

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Claim is one labelled claim as the fit sees it: its gold label (true:
// supported), the first verifier's p(supported) and both verifiers' labels
// (true: supported; the argmax of their raw logits). Passages is how many
// passages the second verifier read (pairs it scored: at least 1).
// Prefixes, when the second verifier was also run on the claim's first
// passage alone, its first two, and so on, are those runs' verdicts in
// that order: what an exit checked after that many passages decides.
type Claim struct {
	Gold                  bool
	FirstP                float64
	FirstSays, SecondSays bool
	Passages              int
	Prefixes              []Prefix
}

// Prefix is the second verifier's verdict on a claim's first passages: its
// evidence (the larger of p(supported) and p(unsupported)) and its label.
type Prefix struct {
	Evidence float64
	Says     bool
}

// secondSays is the second verifier's label under exit, checked after
// each count of after (the cascade's rounds; empty: after the first
// passage), and the pairs it scored for the claim. A check past the
// claim's prefix runs is not simulated (Fit never makes one).
func (x Claim) secondSays(exit float64, after []int) (bool, int) {
	n := max(1, x.Passages)
	if exit > 0 {
		if len(after) == 0 {
			after = []int{1}
		}
		for _, k := range after {
			if k >= n || k > len(x.Prefixes) {
				break
			}
			if p := x.Prefixes[k-1]; p.Evidence >= exit {
				return p.Says, k
			}
		}
	}
	return x.SecondSays, n
}

// Set is one labelled set's claims.
type Set struct {
	Name   string
	Claims []Claim
}

// Figures are a band's results on one set: the binary balanced accuracy
// of the first verifier, the second alone and the cascade (NaN when the set
// has one binary gold class only), the fraction of claims sent to the
// second verifier, and the fraction of the pairs the second verifier alone
// would score that it scores in the cascade (less than Sent with an exit).
type Figures struct {
	Set                    string
	N                      int
	First, Second, Cascade float64
	Sent, Pairs            float64
}

// Evaluate gives b's figures on s.
func Evaluate(b Band, s Set) Figures {
	var c [3][2][2]int // verifier (first, second, cascade) × gold × said
	sent, pairs, all := 0, 0, 0
	for _, x := range s.Claims {
		g := idx(x.Gold)
		c[0][g][idx(x.FirstSays)]++
		c[1][g][idx(x.SecondSays)]++
		all += max(1, x.Passages)
		says := x.FirstSays
		if b.Sends(x.FirstP) {
			var n int
			says, n = x.secondSays(b.Exit, b.ExitAfter)
			sent++
			pairs += n
		}
		c[2][g][idx(says)]++
	}
	f := Figures{Set: s.Name, N: len(s.Claims), First: ba(c[0]), Second: ba(c[1]), Cascade: ba(c[2]), Sent: math.NaN(), Pairs: math.NaN()}
	if f.N > 0 {
		f.Sent = float64(sent) / float64(f.N)
		f.Pairs = float64(pairs) / float64(all)
	}
	return f
}

// Exits are the exits Fit tries when the sets have prefix runs: none,
// then evidence thresholds from the strictest down.
var Exits = []float64{0, 0.99, 0.98, 0.97, 0.95, 0.93, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5}

// prefixes is how many prefix runs the claims of sets have, or an error
// when they differ (an exit fitted on some sets' prefixes could not be
// measured on the others').
func prefixes(sets []Set) (int, error) {
	n, from := -1, ""
	for _, s := range sets {
		for _, x := range s.Claims {
			if n < 0 {
				n, from = len(x.Prefixes), s.Name
			} else if len(x.Prefixes) != n {
				return 0, fmt.Errorf("cascade fit: set %s has %d prefix runs, set %s %d: give every set the same", s.Name, len(x.Prefixes), from, n)
			}
		}
	}
	return max(n, 0), nil
}

func idx(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ba is the mean recall of the gold classes present.
func ba(c [2][2]int) float64 {
	s, n := 0.0, 0
	for g := range c {
		if t := c[g][0] + c[g][1]; t > 0 {
			s += float64(c[g][g]) / float64(t)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// maxCandidates bounds the thresholds tried per side: quantiles of the
// first verifier's p(supported) over the fit's claims.
const maxCandidates = 200

// Fit chooses the band (and, when every claim has prefix runs, the exit,
// checked after each prefix) that sends the smallest mean fraction of each
// set's pairs to the second verifier while the cascade's balanced accuracy
// stays at least the second verifier's alone (every passage read) minus
// tol on every set that has one (ties: the first found, in order of Exits,
// then Low, then High — a deterministic choice). The band sending every
// claim with no exit always qualifies.
func Fit(sets []Set, tol float64) (Band, error) {
	return fit(sets, tol, false)
}

// FitExit is Fit with the band fixed to Everything: every claim goes to
// the second verifier and only the exit is chosen (none without
// first-passage runs).
func FitExit(sets []Set, tol float64) (Band, error) {
	return fit(sets, tol, true)
}

func fit(sets []Set, tol float64, exitOnly bool) (Band, error) {
	if len(sets) == 0 {
		return Band{}, errors.New("cascade fit: no labelled sets")
	}
	np, err := prefixes(sets)
	if err != nil {
		return Band{}, err
	}
	exits := []float64{0}
	var after []int // the checks the prefix runs allow: after 1, 2, … np passages (one: the default)
	if np > 0 {
		exits = Exits
	}
	if np > 1 {
		for i := 1; i <= np; i++ {
			after = append(after, i)
		}
	}
	bands := [][2]float64{{Everything.Low, Everything.High}}
	if !exitOnly {
		cands := candidates(sets)
		bands = bands[:0]
		for i, lo := range cands {
			for _, hi := range cands[i:] {
				bands = append(bands, [2]float64{lo, hi})
			}
		}
	}
	best, bestPairs := Everything, math.Inf(1)
	for _, exit := range exits {
		checks := after
		if exit == 0 {
			checks = nil
		}
		for _, lh := range bands {
			b := Band{Version: BandVersion, Low: lh[0], High: lh[1], Exit: exit, ExitAfter: checks}
			if pairs, ok := meanPairs(b, sets, tol, bestPairs); ok && pairs < bestPairs {
				best, bestPairs = b, pairs
			}
		}
	}
	best.Tolerance = tol
	for _, s := range sets {
		best.Sets = append(best.Sets, s.Name)
	}
	var m [4]float64
	for _, s := range sets {
		f := Evaluate(best, s)
		m[0] += f.Sent / float64(len(sets))
		m[1] += nan0(f.Cascade)
		m[2] += nan0(f.Second)
		m[3] += f.Pairs / float64(len(sets))
	}
	best.SentFraction, best.PairFraction = m[0], m[3]
	if n := float64(definedSets(sets)); n > 0 {
		best.BalancedAccuracy, best.SecondBalancedAccuracy = m[1]/n, m[2]/n
	}
	return best, nil
}

func nan0(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}

func definedSets(sets []Set) int {
	n := 0
	for _, s := range sets {
		if !math.IsNaN(Evaluate(Everything, s).Second) {
			n++
		}
	}
	return n
}

// meanPairs is b's mean fraction of pairs sent over sets, and whether it
// keeps the accuracy on every set; it stops early once the fraction
// passes limit.
func meanPairs(b Band, sets []Set, tol, limit float64) (float64, bool) {
	pairs := 0.0
	for _, s := range sets {
		f := Evaluate(b, s)
		if !math.IsNaN(f.Second) && !(f.Cascade >= f.Second-tol) {
			return 0, false
		}
		pairs += f.Pairs / float64(len(sets))
		if pairs > limit {
			return pairs, false
		}
	}
	return pairs, true
}

// candidates are the thresholds tried: -1 and 2 (bands open on one side,
// or sending all) and up to maxCandidates quantiles of the first verifier's
// p(supported), midway between neighbouring values so that no claim sits
// on a threshold.
func candidates(sets []Set) []float64 {
	var ps []float64
	for _, s := range sets {
		for _, c := range s.Claims {
			ps = append(ps, c.FirstP)
		}
	}
	sort.Float64s(ps)
	out := []float64{-1}
	step := max(1, len(ps)/maxCandidates)
	for i := step; i < len(ps); i += step {
		if ps[i] > ps[i-1] {
			out = append(out, (ps[i]+ps[i-1])/2)
		}
	}
	return append(out, 2)
}

// LeaveOneOut fits a band with fit (Fit or FitExit) on every set but one
// and evaluates it on the one left out, for each set in turn.
func LeaveOneOut(sets []Set, tol float64, fit func([]Set, float64) (Band, error)) ([]Figures, []Band, error) {
	if len(sets) < 2 {
		return nil, nil, fmt.Errorf("cascade fit: leave one set out needs two sets or more, got %d", len(sets))
	}
	if _, err := prefixes(sets); err != nil {
		return nil, nil, err
	}
	var figs []Figures
	var bands []Band
	for i, s := range sets {
		rest := append(append([]Set{}, sets[:i]...), sets[i+1:]...)
		b, err := fit(rest, tol)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, Evaluate(b, s))
		bands = append(bands, b)
	}
	return figs, bands, nil
}
