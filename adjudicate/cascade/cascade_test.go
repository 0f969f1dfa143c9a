package cascade

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
)

// pSup is the fake first verifier's p(supported) for a claim: a hash of
// its text, spread over [0, 1).
func pSup(claim string) float64 {
	h := fnv.New64a()
	h.Write([]byte(claim))
	return float64(h.Sum64()%1000) / 1000
}

// first gives each claim logits whose p(supported) is pSup (the other two
// classes share the rest).
type first struct{}

func (first) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(batch))
	for i, p := range batch {
		s := min(max(pSup(p.Claim), 1e-6), 1-1e-6)
		r := math.Log((1 - s) / 2)
		out[i] = adjudicate.Verdict{Logits: [3]float64{math.Log(s), r, r}, Passage: -1, Rationale: "first"}
	}
	return out, nil
}

// second records the claims and passage counts it saw, and gives logits
// of its own (a function of the claim and of the passages it read).
type second struct {
	mu       sync.Mutex
	seen     []string
	passages map[string]int
	fail     error
}

func (s *second) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.fail != nil {
		return nil, s.fail
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.passages == nil {
		s.passages = map[string]int{}
	}
	out := make([]adjudicate.Verdict, len(batch))
	for i, p := range batch {
		s.seen = append(s.seen, p.ClaimID)
		s.passages[p.ClaimID] = len(p.Passages)
		out[i] = adjudicate.Verdict{Logits: [3]float64{1 - pSup(p.Claim), float64(len(p.Passages)), 0.5}, Passage: len(p.Passages) - 1, Rationale: "second"}
	}
	return out, nil
}

func newCascade(band Band, m int) (*Verifier, *second) {
	s := &second{}
	return &Verifier{First: first{}, Second: s, FirstName: "lexical", SecondName: "fake", Band: band, Passages: m}, s
}

func TestConformance(t *testing.T) {
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier {
		v, _ := newCascade(Band{Version: BandVersion, Low: 0.3, High: 0.7}, 1)
		return v
	})
}

// Exactly the claims whose first p(supported) lies inside the band reach
// the second verifier, with at most m passages; each verdict names who
// decided and is that verifier's own.
func TestOnlyTheBandReachesTheSecond(t *testing.T) {
	pairs := adjudicatetest.Pairs()
	band := Band{Version: BandVersion, Low: 0.25, High: 0.75}
	v, s := newCascade(band, 1)
	got, err := v.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, p := range pairs {
		inside := pSup(p.Claim) > 0.25 && pSup(p.Claim) < 0.75
		if inside {
			want = append(want, p.ClaimID)
		}
		who, rationale := "lexical", "first"
		if inside {
			who, rationale = "fake", "second"
		}
		if got[i].DecidedBy != who || got[i].Rationale != rationale {
			t.Errorf("claim %s (p %.3f): decided by %q (%s), want %q", p.ClaimID, pSup(p.Claim), got[i].DecidedBy, got[i].Rationale, who)
		}
	}
	if len(want) == 0 || len(want) == len(pairs) {
		t.Fatalf("the test's band sends %d of %d claims: pick one that splits them", len(want), len(pairs))
	}
	if !slices.Equal(s.seen, want) {
		t.Errorf("second saw %v, want %v", s.seen, want)
	}
	for id, n := range s.passages {
		if n > 1 {
			t.Errorf("claim %s: second read %d passages, want at most 1", id, n)
		}
	}
}

// Everything sends every claim, a band with Low ≥ High none; m = 0 gives
// the second verifier every passage.
func TestBandEnds(t *testing.T) {
	pairs := adjudicatetest.Pairs()
	v, s := newCascade(Everything, 0)
	if _, err := v.Verify(context.Background(), pairs); err != nil {
		t.Fatal(err)
	}
	if len(s.seen) != len(pairs) {
		t.Errorf("Everything sent %d of %d claims", len(s.seen), len(pairs))
	}
	for _, p := range pairs {
		if s.passages[p.ClaimID] != len(p.Passages) {
			t.Errorf("claim %s: second read %d passages of %d", p.ClaimID, s.passages[p.ClaimID], len(p.Passages))
		}
	}
	v, s = newCascade(Band{Version: BandVersion, Low: 0.5, High: 0.5}, 0)
	if _, err := v.Verify(context.Background(), pairs); err != nil {
		t.Fatal(err)
	}
	if len(s.seen) != 0 {
		t.Errorf("an empty band sent %v", s.seen)
	}
}

// A claim's verdict is the same whatever the batch it comes in.
func TestVerdictsDoNotDependOnTheBatch(t *testing.T) {
	pairs := adjudicatetest.Pairs()
	band := Band{Version: BandVersion, Low: 0.2, High: 0.8}
	v, _ := newCascade(band, 2)
	whole, err := v.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 2, 3, 7} {
		v, _ := newCascade(band, 2)
		var got []adjudicate.Verdict
		for lo := 0; lo < len(pairs); lo += size {
			part, err := v.Verify(context.Background(), pairs[lo:min(lo+size, len(pairs))])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, part...)
		}
		for i := range whole {
			if got[i].Logits != whole[i].Logits || got[i].DecidedBy != whole[i].DecidedBy || got[i].Passage != whole[i].Passage {
				t.Errorf("batch size %d, claim %s: %+v, want %+v", size, pairs[i].ClaimID, got[i], whole[i])
			}
		}
	}
}

// A failing second verifier fails the call (the scheduler retries or
// reports it): no claim inside the band is decided by the first instead.
func TestSecondFailureFailsTheCall(t *testing.T) {
	v, s := newCascade(Everything, 0)
	s.fail = adjudicate.Transient(errors.New("busy"))
	_, err := v.Verify(context.Background(), adjudicatetest.Pairs())
	if !adjudicate.IsTransient(err) {
		t.Fatalf("err = %v, want the second verifier's transient error", err)
	}
}

func TestBandFileRoundTripAndChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, BandFile)
	b := Band{Version: BandVersion, Low: 0.1, High: 0.6, Passages: 2, Tolerance: 0.005, Sets: []string{"a", "b"}}
	if err := WriteBand(path, b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBand(path)
	if err != nil || got.Low != b.Low || got.High != b.High || got.Passages != 2 {
		t.Fatalf("ReadBand = %+v, %v; want %+v", got, err, b)
	}
	for _, bad := range []Band{{Version: 9}, {Version: BandVersion, Passages: -1}, {Version: BandVersion, Low: math.Inf(-1)}} {
		if err := bad.Check(); err == nil {
			t.Errorf("Check(%+v) = nil, want an error", bad)
		}
	}
}

type workers struct {
	second
	n int
}

func (w *workers) PreferredWorkers() int { return w.n }

// The cascade wants the calls in flight that the more demanding of its two
// verifiers wants (a model on the CPU: 2), and one when neither says.
func TestPreferredWorkers(t *testing.T) {
	v, _ := newCascade(Band{Low: 0.2, High: 0.8}, 0)
	if got := v.PreferredWorkers(); got != 1 {
		t.Fatalf("neither verifier prefers: got %d workers, want 1", got)
	}
	v.Second = &workers{n: 2}
	if got := v.PreferredWorkers(); got != 2 {
		t.Fatalf("second prefers 2: got %d", got)
	}
	var _ adjudicate.WorkerSizer = v
}

// countingFirst is the first verifier, counting its calls.
type countingFirst struct {
	first
	calls int
}

func (c *countingFirst) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	c.calls++
	return c.first.Verify(ctx, batch)
}

// A band that sends every claim (Everything, or a fitted exit alone) does
// not run the first verifier, whose verdicts would all be replaced; the
// verdicts are the same as when it runs, and any other band runs it.
func TestBandSendingAllSkipsTheFirst(t *testing.T) {
	pairs := adjudicatetest.Pairs()
	all, _ := newCascade(Band{Version: BandVersion, Low: -1, High: 2}, 0)
	cf := &countingFirst{}
	all.First = cf
	got, err := all.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if cf.calls != 0 {
		t.Errorf("band (-1, 2) sends all, yet the first verifier ran %d times", cf.calls)
	}
	// the same claims with a band that sends all these claims but runs the
	// first: (0, 1) holds every p(supported) the fake first gives (strictly
	// inside, by its clipping) and is not SendsAll.
	ran, _ := newCascade(Band{Version: BandVersion, Low: 0, High: 1}, 0)
	if ran.Band.SendsAll() {
		t.Fatal("test band should not count as SendsAll")
	}
	cf2 := &countingFirst{}
	ran.First = cf2
	want, err := ran.Verify(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	if cf2.calls == 0 {
		t.Error("a band inside [0, 1] must run the first verifier")
	}
	for i := range pairs {
		if got[i].Logits != want[i].Logits || got[i].DecidedBy != want[i].DecidedBy || got[i].Rationale != want[i].Rationale {
			t.Errorf("claim %d: %+v without the first, %+v with it", i, got[i], want[i])
		}
	}
	if !Everything.SendsAll() {
		t.Error("Everything must send all")
	}
}
