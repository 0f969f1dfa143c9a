package cascade

import (
	"fmt"
	"math"
	"testing"
)

// synthetic is a set of n claims with p(supported) spread evenly over
// (0, 1); the first verifier is right outside (lo, hi) and wrong inside,
// the second is always right. Gold alternates.
func synthetic(name string, n int, lo, hi float64) Set {
	s := Set{Name: name}
	for i := 0; i < n; i++ {
		p := (float64(i) + 0.5) / float64(n)
		gold := i%2 == 0
		firstSays := gold
		if p > lo && p < hi {
			firstSays = !gold
		}
		s.Claims = append(s.Claims, Claim{Gold: gold, FirstP: p, FirstSays: firstSays, SecondSays: gold})
	}
	return s
}

// With no tolerance, the band must cover exactly the claims the first
// verifier gets wrong: the fewest claims that keep the second's accuracy.
func TestFitSendsOnlyWhatItMust(t *testing.T) {
	sets := []Set{synthetic("a", 400, 0.3, 0.6), synthetic("b", 400, 0.3, 0.6)}
	b, err := Fit(sets, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		f := Evaluate(b, s)
		if f.Cascade != f.Second {
			t.Errorf("%s: cascade %.4f, second %.4f: the fit lost accuracy", s.Name, f.Cascade, f.Second)
		}
		if math.Abs(f.Sent-0.3) > 0.02 {
			t.Errorf("%s: sent %.3f of the claims, want about 0.3 (the claims in (0.3, 0.6))", s.Name, f.Sent)
		}
	}
	if b.Low > 0.31 || b.Low < 0.28 || b.High < 0.59 || b.High > 0.62 {
		t.Errorf("band (%.3f, %.3f), want about (0.3, 0.6)", b.Low, b.High)
	}
}

// A tolerance lets the fit keep some of the first verifier's mistakes:
// it sends fewer claims, and loses no more than the tolerance.
func TestFitToleranceTradesAccuracyForClaims(t *testing.T) {
	sets := []Set{synthetic("a", 400, 0.3, 0.6), synthetic("b", 400, 0.3, 0.6)}
	strict, _ := Fit(sets, 0)
	loose, _ := Fit(sets, 0.05)
	if !(loose.SentFraction < strict.SentFraction) {
		t.Errorf("sent %.3f at tolerance 0.05, %.3f at 0: want fewer", loose.SentFraction, strict.SentFraction)
	}
	for _, s := range sets {
		if f := Evaluate(loose, s); f.Cascade < f.Second-0.05-1e-12 {
			t.Errorf("%s: cascade %.4f is more than 0.05 below the second's %.4f", s.Name, f.Cascade, f.Second)
		}
	}
}

// Leave one set out measures each set with a band fitted without it: a
// set whose first-verifier mistakes lie elsewhere loses accuracy there.
func TestLeaveOneOutNeverSeesTheHeldOutSet(t *testing.T) {
	sets := []Set{synthetic("a", 300, 0.3, 0.6), synthetic("b", 300, 0.3, 0.6), synthetic("odd", 300, 0.7, 0.9)}
	figs, bands, err := LeaveOneOut(sets, 0, Fit)
	if err != nil {
		t.Fatal(err)
	}
	odd := figs[2]
	if odd.Set != "odd" || !(odd.Cascade < odd.Second-0.1) {
		t.Errorf("held-out odd set: cascade %.3f, second %.3f: want the band fitted on a and b to miss its mistakes", odd.Cascade, odd.Second)
	}
	if bands[2].High > 0.65 {
		t.Errorf("band fitted without odd reaches %.3f: it saw the held-out set", bands[2].High)
	}
	if _, _, err := LeaveOneOut(sets[:1], 0, Fit); err == nil {
		t.Error("leave one out over one set: want an error")
	}
}

// Balanced accuracy is the mean recall of the gold classes present (one
// class: its recall); an empty set has none: NaN figures, never 0.
func TestUndefinedFiguresAreNaN(t *testing.T) {
	s := Set{Name: "one", Claims: []Claim{{Gold: true, FirstP: 0.9, FirstSays: true, SecondSays: true}}}
	f := Evaluate(Everything, s)
	if f.First != 1 || f.Sent != 1 {
		t.Errorf("figures %+v", f)
	}
	empty := Evaluate(Everything, Set{Name: "empty"})
	if !math.IsNaN(empty.Second) || !math.IsNaN(empty.Sent) {
		t.Errorf("empty set: %+v, want NaN figures", empty)
	}
}

// withFirstPassage gives every claim of s a first-passage run: its label
// there is the full read's (right) with evidence 0.95 on every claim with
// index divisible by three, wrong with evidence 0.85 on the others; each
// claim has 5 passages.
func withFirstPassage(s Set) Set {
	for i := range s.Claims {
		x := &s.Claims[i]
		x.Passages = 5
		x.Prefixes = []Prefix{{Evidence: 0.95, Says: x.SecondSays}}
		if i%3 != 0 {
			x.Prefixes[0] = Prefix{Evidence: 0.85, Says: !x.SecondSays}
		}
	}
	return s
}

// With first-passage runs the fit picks the loosest exit that costs no
// accuracy (0.9: it stops only where the first passage is right) and
// counts the pairs it saves; without them it never exits.
func TestFitChoosesTheExitThatKeepsAccuracy(t *testing.T) {
	sets := []Set{withFirstPassage(synthetic("a", 300, 0.3, 0.6)), withFirstPassage(synthetic("b", 300, 0.3, 0.6))}
	b, err := Fit(sets, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Exit <= 0.85 || b.Exit > 0.95 {
		t.Errorf("exit %.2f, want one in (0.85, 0.95]: stopping at 0.85 is wrong, below 0.95 saves pairs", b.Exit)
	}
	for _, s := range sets {
		f := Evaluate(b, s)
		if f.Cascade != f.Second {
			t.Errorf("%s: cascade %.4f, second %.4f: the exit lost accuracy", s.Name, f.Cascade, f.Second)
		}
		// a third of the sent claims stop after 1 pair of 5
		if want := f.Sent * (1 - (1.0/3)*(4.0/5)); f.Pairs > want+0.01 || f.Pairs < want-0.01 {
			t.Errorf("%s: pairs %.3f with %.3f of the claims sent, want about %.3f", s.Name, f.Pairs, f.Sent, want)
		}
	}
	plain, _ := Fit([]Set{synthetic("a", 300, 0.3, 0.6), synthetic("b", 300, 0.3, 0.6)}, 0)
	if plain.Exit != 0 || plain.PairFraction != plain.SentFraction {
		t.Errorf("without first-passage runs: exit %.2f, pairs %.3f, sent %.3f; want no exit and pairs = sent", plain.Exit, plain.PairFraction, plain.SentFraction)
	}
}

func TestBandExitMustBeAProbability(t *testing.T) {
	for _, exit := range []float64{-0.1, 1.5, math.NaN()} {
		if err := (Band{Version: BandVersion, Exit: exit}).Check(); err == nil {
			t.Errorf("exit %g: want an error", exit)
		}
	}
	if err := (Band{Version: BandVersion, Exit: 0.9}).Check(); err != nil {
		t.Errorf("exit 0.9: %v", err)
	}
}

// FitExit keeps every claim with the second verifier and fits only the
// exit: on the same sets it finds the same exit as Fit, and the band sends
// every claim.
func TestFitExitSendsEveryClaim(t *testing.T) {
	sets := []Set{withFirstPassage(synthetic("a", 300, 0.3, 0.6)), withFirstPassage(synthetic("b", 300, 0.3, 0.6))}
	b, err := FitExit(sets, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Low != Everything.Low || b.High != Everything.High || b.SentFraction != 1 {
		t.Errorf("band (%g, %g) sends %.3f: want every claim", b.Low, b.High, b.SentFraction)
	}
	if b.Exit <= 0.85 || b.Exit > 0.95 {
		t.Errorf("exit %.2f, want one in (0.85, 0.95]", b.Exit)
	}
	if want := 1 - (1.0/3)*(4.0/5); math.Abs(b.PairFraction-want) > 0.01 {
		t.Errorf("pairs %.3f, want about %.3f", b.PairFraction, want)
	}
}

// With runs on the first one, two, three and four passages the exit is
// checked after each: a claim stops at the first prefix whose evidence
// reaches it, and pays that many pairs.
func TestFitExitAfterEveryPrefix(t *testing.T) {
	mk := func(name string) Set {
		s := synthetic(name, 300, 0.3, 0.6)
		for i := range s.Claims {
			x := &s.Claims[i]
			x.Passages = 5
			// the first passage is weak (0.6) and wrong on every claim; the
			// first two are strong (0.96) and right on half the claims, the
			// rest stay weak until every passage is read
			wrong := Prefix{Evidence: 0.6, Says: !x.SecondSays}
			x.Prefixes = []Prefix{wrong, wrong, wrong, wrong}
			if i%2 == 0 {
				right := Prefix{Evidence: 0.96, Says: x.SecondSays}
				x.Prefixes = []Prefix{wrong, right, right, right}
			}
		}
		return s
	}
	sets := []Set{mk("a"), mk("b")}
	b, err := FitExit(sets, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Exit <= 0.6 || b.Exit > 0.96 {
		t.Errorf("exit %.2f, want one in (0.6, 0.96]: stopping on the weak first passage is wrong", b.Exit)
	}
	if fmt.Sprint(b.ExitAfter) != "[1 2 3 4]" {
		t.Errorf("exit after %v, want [1 2 3 4]", b.ExitAfter)
	}
	// half the claims stop after 2 pairs of 5, the others read all 5
	if want := (0.5*2 + 0.5*5) / 5; math.Abs(b.PairFraction-want) > 0.01 {
		t.Errorf("pairs %.3f, want about %.3f", b.PairFraction, want)
	}
	for _, s := range sets {
		if f := Evaluate(b, s); f.Cascade != f.Second {
			t.Errorf("%s: cascade %.4f, second %.4f", s.Name, f.Cascade, f.Second)
		}
	}
}

// Sets with different numbers of prefix runs are refused: an exit fitted
// on one set's checks could not be measured on the other's.
func TestFitRefusesUnequalPrefixRuns(t *testing.T) {
	a := withFirstPassage(synthetic("a", 100, 0.3, 0.6))
	b := withFirstPassage(synthetic("b", 100, 0.3, 0.6))
	for i := range b.Claims {
		b.Claims[i].Prefixes = append(b.Claims[i].Prefixes, b.Claims[i].Prefixes[0])
	}
	if _, err := Fit([]Set{a, b}, 0); err == nil {
		t.Error("Fit over 1 and 2 prefix runs: want an error")
	}
	if _, _, err := LeaveOneOut([]Set{a, b}, 0, FitExit); err == nil {
		t.Error("LeaveOneOut over 1 and 2 prefix runs: want an error")
	}
}
