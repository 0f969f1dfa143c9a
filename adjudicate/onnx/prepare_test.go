package onnx

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/stretchr/testify/require"
)

// verifyWaves is Verify as it was before Prepare (main at 484dd8a), kept
// as the oracle: Prepare's path and today's Verify must give its verdicts
// bit for bit, through the very same model runs.
func (v *Verifier) verifyWaves(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var pairs []encoded
	var texts [][2]string
	for ci, p := range batch {
		passages := p.Passages
		if len(passages) == 0 {
			passages = []adjudicate.Passage{{}}
		}
		for pi, ps := range passages {
			pairs = append(pairs, encoded{claim: ci, passage: pi})
			texts = append(texts, [2]string{ps.Text, p.Claim})
		}
	}
	errs := make([]error, len(pairs))
	// Tokenise wave by wave on all cores, one wave ahead of inference.
	ready := make(chan [2]int, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(ready)
		for lo := 0; lo < len(pairs); lo += v.waveSize() {
			hi := min(lo+v.waveSize(), len(pairs))
			v.tok.Parallel(hi-lo, func(i int) {
				e, err := v.tok.EncodePair(texts[lo+i][0], texts[lo+i][1], v.maxLen)
				pairs[lo+i].ids, pairs[lo+i].types, errs[lo+i] = e.IDs, e.TypeIDs, err
			})
			select {
			case ready <- [2]int{lo, hi}:
			case <-stop:
				return
			}
		}
	}()
	defer wg.Wait()
	defer close(stop)
	logits := make([][3]float64, len(pairs))
	for r := range ready {
		for i := r[0]; i < r[1]; i++ {
			if errs[i] != nil {
				return nil, fmt.Errorf("claim %s: tokenize: %w", batch[pairs[i].claim].ClaimID, errs[i])
			}
		}
		order := make([]int, 0, r[1]-r[0])
		for i := r[0]; i < r[1]; i++ {
			order = append(order, i)
		}
		sort.SliceStable(order, func(a, b int) bool { return bucket(len(pairs[order[a]].ids)) < bucket(len(pairs[order[b]].ids)) })
		for start := 0; start < len(order); {
			w := bucket(len(pairs[order[start]].ids))
			end := start
			for end < len(order) && end-start < v.maxBatch && bucket(len(pairs[order[end]].ids)) == w {
				end++
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := v.run(pairs, order[start:end], w, logits); err != nil {
				return nil, err
			}
			start = end
		}
	}
	idx := make([]adjudicate.PairIndex, len(pairs))
	for i, e := range pairs {
		idx[i] = adjudicate.PairIndex{Claim: e.claim, Passage: e.passage}
	}
	strength := adjudicate.EvidenceEitherWay
	if v.labels.binary {
		// A two-label model's not-supported column is not evidence against.
		strength = func(p [3]float64) float64 { return p[adjudicate.Supported] }
	}
	out := adjudicate.Strongest(batch, idx, logits, strength)
	for i, p := range batch {
		out[i].Rationale = v.rationale(p, out[i])
	}
	return out, nil
}

// runLog records a verifier's model runs: each run's width and its rows
// as (claim, passage) indexes, in order.
type runLog struct {
	mu   sync.Mutex
	runs []string
}

func (l *runLog) attach(v *Verifier) {
	v.onRun = func(pairs []encoded, idx []int, width int) {
		var b strings.Builder
		fmt.Fprintf(&b, "width %d:", width)
		for _, i := range idx {
			fmt.Fprintf(&b, " %d/%d", pairs[i].claim, pairs[i].passage)
		}
		l.mu.Lock()
		l.runs = append(l.runs, b.String())
		l.mu.Unlock()
	}
}

// take gives the runs recorded so far, sorted: runs side by side
// (Options.Runs) finish in any order; which pairs share a run, and at
// what width, is what must not change.
func (l *runLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.runs
	l.runs = nil
	sort.Strings(r)
	return r
}

// samePaths asserts that Verify, and Prepare then its function (called
// twice, as a retry would), give the oracle's verdicts bit for bit through
// the same model runs.
func samePaths(t testing.TB, v *Verifier, batch []adjudicate.Pair, what string) {
	ctx := context.Background()
	var log runLog
	log.attach(v)
	defer func() { v.onRun = nil }()
	want, err := v.verifyWaves(ctx, batch)
	require.NoError(t, err, what)
	wantRuns := log.take()
	got, err := v.Verify(ctx, batch)
	require.NoError(t, err, what)
	require.Equal(t, want, got, "%s: Verify", what)
	require.Equal(t, wantRuns, log.take(), "%s: Verify's model runs", what)
	run := v.Prepare(ctx, batch)
	for try := 0; try < 2; try++ {
		got, err := run(ctx)
		require.NoError(t, err, what)
		require.Equal(t, want, got, "%s: Prepare, call %d", what, try)
		require.Equal(t, wantRuns, log.take(), "%s: Prepare's model runs, call %d", what, try)
	}
}

// genBatches builds batches from the pieces that matter to the waves and
// buckets: claims and passages from empty to past the maximum length,
// claims without passages, up to 60 claims of up to 6 passages (a call of
// several waves).
func genBatches(r *rand.Rand, n int) [][]adjudicate.Pair {
	var words []string
	for _, p := range adjudicatetest.Pairs() {
		words = append(words, strings.Fields(p.Claim)...)
		for _, ps := range p.Passages[:min(1, len(p.Passages))] {
			words = append(words, strings.Fields(ps.Text)[:min(40, len(strings.Fields(ps.Text)))]...)
		}
	}
	words = append(words, "naïve", "Ωmega", "12.5%", "1,024", "—", "", "\t", "🌍")
	text := func(maxWords int) string {
		k := r.IntN(maxWords + 1)
		w := make([]string, k)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	passage := func() string {
		switch r.IntN(10) {
		case 0:
			return ""
		case 1:
			return text(400) // often past the maximum length
		case 2, 3, 4:
			return text(120)
		}
		return text(40)
	}
	batches := make([][]adjudicate.Pair, n)
	for b := range batches {
		claims := 1 + r.IntN(12)
		if r.IntN(4) == 0 {
			claims = 1 + r.IntN(60)
		}
		for c := 0; c < claims; c++ {
			p := adjudicate.Pair{ClaimID: fmt.Sprintf("b%dc%d", b, c), Claim: text(30)}
			for k := r.IntN(7); k > 0; k-- {
				p.Passages = append(p.Passages, adjudicate.Passage{ID: fmt.Sprintf("p%d", len(p.Passages)), DocID: "d", Text: passage()})
			}
			batches[b] = append(batches[b], p)
		}
	}
	return batches
}

// testModels are the folders a test runs on, each with its number of
// generated batches: the tiny BERT-style model, the RoBERTa-style and the
// two-label ones, and every shipped model; under -short the tiny one alone.
func testModels(t *testing.T, tinyN, otherN, shippedN, shortN int) map[string]int {
	if testing.Short() {
		return map[string]int{tiny: shortN}
	}
	models := map[string]int{tiny: tinyN, "testdata/roberta": otherN, "testdata/binary": otherN}
	for _, dir := range shippedModels(t) {
		models[dir] = shippedN
	}
	return models
}

// Prepare's path and Verify equal the oracle on generated batches, for
// each test model (three labels with token types, RoBERTa without them,
// two labels with int32 inputs) and each shipped int8 model.
func TestPrepareEqualsVerifyOnGeneratedBatches(t *testing.T) {
	needRuntime(t)
	for dir, n := range testModels(t, 100, 20, 6, 20) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			v := newModel(t, dir, Options{})
			r := rand.New(rand.NewPCG(25, uint64(n)))
			pairs := 0
			for i, batch := range genBatches(r, n) {
				samePaths(t, v, batch, fmt.Sprintf("batch %d", i))
				for _, p := range batch {
					pairs += max(1, len(p.Passages))
				}
			}
			t.Logf("%d batches, %d pairs", n, pairs)
		})
	}
}

// How many runs go side by side (Options.Runs) changes neither the
// verdicts, bit for bit, nor which pairs share a run: one run at a time on
// all of ONNX Runtime's threads against 2 or 5 at once, each on one, on
// the test models and every shipped model.
func TestRunsDoNotChangeVerdicts(t *testing.T) {
	needRuntime(t)
	ctx := context.Background()
	for dir, n := range testModels(t, 40, 10, 4, 10) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			one := newModel(t, dir, Options{Runs: 1})
			require.Nil(t, one.slots, "--ort-runs 1 runs on the session's own threads")
			require.Equal(t, 1, one.PreferredWorkers())
			var wantLog runLog
			wantLog.attach(one)
			batches := genBatches(rand.New(rand.NewPCG(42, uint64(n))), n)
			var want [][]adjudicate.Verdict
			var wantRuns [][]string
			for _, b := range batches {
				vs, err := one.Verify(ctx, b)
				require.NoError(t, err)
				want = append(want, vs)
				wantRuns = append(wantRuns, wantLog.take())
			}
			for _, runs := range []int{2, 5} {
				v := newModel(t, dir, Options{Runs: runs})
				require.Equal(t, runs, cap(v.slots))
				require.Equal(t, 2, v.PreferredWorkers(), "runs side by side want two calls in flight")
				var log runLog
				log.attach(v)
				for i, b := range batches {
					got, err := v.Verify(ctx, b)
					require.NoError(t, err)
					require.Equal(t, want[i], got, "--ort-runs %d, batch %d: Verify", runs, i)
					require.Equal(t, wantRuns[i], log.take(), "--ort-runs %d, batch %d: the runs", runs, i)
					got, err = v.Prepare(ctx, b)(ctx)
					require.NoError(t, err)
					require.Equal(t, want[i], got, "--ort-runs %d, batch %d: Prepare", runs, i)
					log.take()
				}
			}
		})
	}
}

// The same on real text: each claim of the real sets with five lines of
// their corpora, in batches of 32 claims (the scheduler's). DATA names the
// folder of the sets (the Makefile passes it); without it the test is
// skipped.
func TestPrepareEqualsVerifyOnRealSets(t *testing.T) {
	dir := os.Getenv("DATA")
	if dir == "" {
		t.Skip("DATA unset: no real sets to compare on (make test DATA=folder)")
	}
	v := newTiny(t)
	for _, set := range []string{"sufficient_facts", "fm2", "citint_train", "checkcovid_train"} {
		claims := jsonlField(t, filepath.Join(dir, set, "claims.jsonl"), "text")
		var lines []string
		for _, doc := range jsonlField(t, filepath.Join(dir, set, "corpus.jsonl"), "text") {
			for _, l := range strings.Split(doc, "\n") {
				if strings.TrimSpace(l) != "" {
					lines = append(lines, l)
				}
			}
		}
		r := rand.New(rand.NewPCG(25, 202))
		const most = 640
		pairs := 0
		for lo := 0; lo < min(len(claims), most); lo += 32 {
			var batch []adjudicate.Pair
			for i := lo; i < min(lo+32, len(claims), most); i++ {
				p := adjudicate.Pair{ClaimID: fmt.Sprint(i), Claim: claims[i]}
				for k := 0; k < 5; k++ {
					p.Passages = append(p.Passages, adjudicate.Passage{Text: lines[r.IntN(len(lines))]})
				}
				pairs += len(p.Passages)
				batch = append(batch, p)
			}
			samePaths(t, v, batch, fmt.Sprintf("%s claims %d-", set, lo))
		}
		t.Logf("%s: %d pairs equal", set, pairs)
	}
}

func jsonlField(t *testing.T, path, field string) []string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &o), path)
		s, _ := o[field].(string)
		out = append(out, s)
	}
	require.NotEmpty(t, out, path)
	return out
}

// Any claim and passage text: the three paths agree, on the pair alone
// and repeated past a wave.
func FuzzPrepareEqualsVerify(f *testing.F) {
	for i, p := range adjudicatetest.Pairs() {
		text := ""
		if len(p.Passages) > 0 {
			text = p.Passages[0].Text
		}
		f.Add(p.Claim, text[:min(len(text), 400)], uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, claim, passage string, copies uint8) {
		if os.Getenv("ORT_LIB") == "" {
			t.Skip("ORT_LIB not set")
		}
		v := fuzzVerifier(t)
		pair := adjudicate.Pair{ClaimID: "f", Claim: claim, Passages: []adjudicate.Passage{{Text: passage}, {Text: claim}, {Text: passage + " " + claim}}}
		batch := []adjudicate.Pair{pair, {ClaimID: "none", Claim: passage}}
		for range int(copies) % 48 {
			batch = append(batch, pair)
		}
		samePaths(t, v, batch, fmt.Sprintf("claim %q passage %q", claim, passage))
	})
}

var fuzzTiny struct {
	once sync.Once
	v    *Verifier
	err  error
}

// fuzzVerifier is one tiny-model verifier for the whole fuzzing process
// (a session per input would be most of the time).
func fuzzVerifier(t *testing.T) *Verifier {
	fuzzTiny.once.Do(func() {
		v, err := New(Options{Model: tiny})
		if err == nil {
			fuzzTiny.v = v.(*Verifier)
		}
		fuzzTiny.err = err
	})
	require.NoError(t, fuzzTiny.err)
	return fuzzTiny.v
}

// The executor with slots gives the error of the first run submitted that
// failed, whatever order the runs finish in, starts no run after a failure
// is seen, and waits for every run it started before returning.
func TestExecutorFirstErrorAndWaits(t *testing.T) {
	v := &Verifier{slots: make(chan struct{}, 3)}
	ex := v.executor(context.Background())
	var mu sync.Mutex
	finished := 0
	release := make(chan struct{})
	errA, errB := fmt.Errorf("run 1 failed"), fmt.Errorf("run 2 failed")
	// run 1 fails late, run 2 fails at once: the error is run 1's.
	require.NoError(t, ex.do(func() error { <-release; mu.Lock(); finished++; mu.Unlock(); return errA }))
	require.NoError(t, ex.do(func() error { mu.Lock(); finished++; mu.Unlock(); return errB }))
	for { // until run 2's failure is recorded
		ex.mu.Lock()
		bad := ex.bad
		ex.mu.Unlock()
		if bad {
			break
		}
		runtime.Gosched()
	}
	require.ErrorIs(t, ex.do(func() error { t.Error("a run started after a failure"); return nil }), errStopped)
	close(release)
	require.ErrorIs(t, ex.finish(errStopped), errA)
	require.Equal(t, 2, finished, "fail returned before its runs finished")
	require.Empty(t, v.slots, "a slot was not given back")

	// Without slots runs go one after the other, on the caller's goroutine.
	seq := (&Verifier{}).executor(context.Background())
	require.ErrorIs(t, seq.do(func() error { return errB }), errB)
	require.NoError(t, seq.finish(nil))

	// A cancelled context stops a call waiting for a slot.
	full := &Verifier{slots: make(chan struct{}, 1)}
	full.slots <- struct{}{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, full.executor(ctx).do(func() error { return nil }), context.Canceled)
}

// --ort-runs outside 0..MaxRuns, or above 1 on cuda (where batches run one
// at a time), is refused before anything loads, naming the flag.
func TestRunsOutOfRangeRefused(t *testing.T) {
	for _, o := range []Options{{Model: tiny, Runs: -1}, {Model: tiny, Runs: MaxRuns + 1}, {Model: tiny, Device: "cuda", Runs: 2}} {
		_, err := New(o)
		require.Error(t, err, "%+v", o)
		require.Contains(t, err.Error(), "--ort-runs", "%+v", o)
	}
}
