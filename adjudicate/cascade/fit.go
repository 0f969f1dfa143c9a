package cascade

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Claim is one labelled claim as the fit sees it: its gold label (true:
// supported), the first verifier's p(supported) and both verifiers' labels
// (true: supported; the argmax of their raw logits).
type Claim struct {
	Gold                  bool
	FirstP                float64
	FirstSays, SecondSays bool
}

// Set is one labelled set's claims.
type Set struct {
	Name   string
	Claims []Claim
}

// Figures are a band's results on one set: the binary balanced accuracy
// of the first verifier, the second alone and the cascade (NaN when the set
// has one binary gold class only), and the fraction of claims sent to the
// second verifier.
type Figures struct {
	Set                    string
	N                      int
	First, Second, Cascade float64
	Sent                   float64
}

// Evaluate gives b's figures on s.
func Evaluate(b Band, s Set) Figures {
	var c [3][2][2]int // verifier (first, second, cascade) × gold × said
	sent := 0
	for _, x := range s.Claims {
		g := idx(x.Gold)
		c[0][g][idx(x.FirstSays)]++
		c[1][g][idx(x.SecondSays)]++
		says := x.FirstSays
		if b.Sends(x.FirstP) {
			says = x.SecondSays
			sent++
		}
		c[2][g][idx(says)]++
	}
	f := Figures{Set: s.Name, N: len(s.Claims), First: ba(c[0]), Second: ba(c[1]), Cascade: ba(c[2]), Sent: math.NaN()}
	if f.N > 0 {
		f.Sent = float64(sent) / float64(f.N)
	}
	return f
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

// Fit chooses the band that sends the smallest mean fraction of each set's
// claims to the second verifier while the cascade's balanced accuracy
// stays at least the second verifier's alone minus tol on every set that
// has one (ties: the first found, in order of Low then High — a
// deterministic choice). The band sending every claim always qualifies.
func Fit(sets []Set, tol float64) (Band, error) {
	if len(sets) == 0 {
		return Band{}, errors.New("cascade fit: no labelled sets")
	}
	cands := candidates(sets)
	best, bestSent := Everything, math.Inf(1)
	for i, lo := range cands {
		for _, hi := range cands[i:] {
			b := Band{Version: BandVersion, Low: lo, High: hi}
			sent, ok := meanSent(b, sets, tol, bestSent)
			if ok && sent < bestSent {
				best, bestSent = b, sent
			}
		}
	}
	best.Tolerance = tol
	for _, s := range sets {
		best.Sets = append(best.Sets, s.Name)
	}
	var m [3]float64
	for _, s := range sets {
		f := Evaluate(best, s)
		m[0] += f.Sent / float64(len(sets))
		m[1] += nan0(f.Cascade)
		m[2] += nan0(f.Second)
	}
	best.SentFraction = m[0]
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

// meanSent is b's mean sent fraction over sets, and whether it keeps the
// accuracy on every set; it stops early once the fraction passes limit.
func meanSent(b Band, sets []Set, tol, limit float64) (float64, bool) {
	sent := 0.0
	for _, s := range sets {
		f := Evaluate(b, s)
		if !math.IsNaN(f.Second) && !(f.Cascade >= f.Second-tol) {
			return 0, false
		}
		sent += f.Sent / float64(len(sets))
		if sent > limit {
			return sent, false
		}
	}
	return sent, true
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

// LeaveOneOut fits a band on every set but one and evaluates it on the one
// left out, for each set in turn.
func LeaveOneOut(sets []Set, tol float64) ([]Figures, []Band, error) {
	if len(sets) < 2 {
		return nil, nil, fmt.Errorf("cascade fit: leave one set out needs two sets or more, got %d", len(sets))
	}
	var figs []Figures
	var bands []Band
	for i, s := range sets {
		rest := append(append([]Set{}, sets[:i]...), sets[i+1:]...)
		b, err := Fit(rest, tol)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, Evaluate(b, s))
		bands = append(bands, b)
	}
	return figs, bands, nil
}
