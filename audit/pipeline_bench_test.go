package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/null"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
	"github.com/claimaudit/claimaudit/benchdata"
	"github.com/claimaudit/claimaudit/claims"
)

// The retrieve_and_verify stage alone, on generated data: BENCH_CLAIMS
// claims (default 5,000) of 2,000 documents, seed 202, or the folder
// BENCH_DATA that `audit gen` wrote (its index is built in BENCH_DATA/index
// once). The onnx benchmarks need ORT_LIB and run the tiny test model.
//
//	go test ./audit -run '^$' -bench 'Stage|VerifyRetrieved' -benchtime 1x
//
// BenchmarkStage reports the stage's claims/s and pairs/s;
// BenchmarkVerifyRetrieved calls Verify alone on the same claims' pairs
// (retrieved beforehand), in the scheduler's batches, one call at a time.
//
// BenchmarkStageVsVerify is the comparison the issue's aim ("the stage's
// pairs/s ≥ 80% of Verify's, in the same command") is judged by, for the
// tiny ONNX model: in one process, BENCH_ROUNDS rounds (default 3), each
// running, in alternating order, Verify alone on the stage's own pairs
// (retrieved beforehand) through adjudicate.Schedule with the stage's
// options and nothing else to do (the verifier's ceiling on this data),
// the same pairs in direct Verify calls of the preferred batch, one at a
// time, and the stage (retrieve+verify). It reports the median of the
// per-round ratios of pairs/s, stage/verify (the aim) and stage/calls,
// and each side's median pairs/s and CPU ms per pair.

var benchData struct {
	once sync.Once
	dir  string
	err  error
}

// benchOptions is the stage's options on the benchmark data.
func benchOptions(b *testing.B) Options {
	benchData.once.Do(func() {
		if d := os.Getenv("BENCH_DATA"); d != "" {
			benchData.dir = d
			return
		}
		n := 5000
		if s := os.Getenv("BENCH_CLAIMS"); s != "" {
			n, benchData.err = strconv.Atoi(s)
		}
		dir, err := os.MkdirTemp("", "audit-bench-")
		if err != nil {
			benchData.err = err
			return
		}
		benchData.dir = dir
		_, err = benchdata.Generate(context.Background(), dir, benchdata.Options{Claims: n, Docs: 2000, Seed: 202})
		if benchData.err == nil {
			benchData.err = err
		}
	})
	if benchData.err != nil {
		b.Fatal(benchData.err)
	}
	d := benchData.dir
	o := Options{CorpusPath: filepath.Join(d, "corpus.jsonl"), SpansPath: filepath.Join(d, "spans.jsonl"),
		ClaimsPath: filepath.Join(d, "claims.jsonl"), GoldPath: filepath.Join(d, "gold.jsonl"),
		OutDir: b.TempDir(), IndexDir: filepath.Join(d, "index")}
	o.defaults()
	return o
}

// benchVerifiers are the backends the stage is measured with.
func benchVerifiers(b *testing.B) map[string]func() (adjudicate.Verifier, error) {
	vs := map[string]func() (adjudicate.Verifier, error){
		"null": func() (adjudicate.Verifier, error) { return null.Verifier{}, nil },
	}
	if os.Getenv("ORT_LIB") != "" {
		vs["onnx-tiny"] = func() (adjudicate.Verifier, error) {
			return onnx.New(onnx.Options{Model: "../adjudicate/onnx/testdata/tiny"})
		}
	}
	return vs
}

func BenchmarkStage(b *testing.B) {
	for _, name := range []string{"null", "onnx-tiny"} {
		newV, ok := benchVerifiers(b)[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			o := benchOptions(b)
			ctx := context.Background()
			in, err := o.readInputs(ctx)
			if err != nil {
				b.Fatal(err)
			}
			ix, err := o.openIndex(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			v, err := newV()
			if err != nil {
				b.Fatal(err)
			}
			defer closeIfCloser(v)
			pairs, busy := 0, 0.0
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				var res Result
				sp, err := o.retrieveAndVerify(ctx, in, ix, v, &res)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				pairs += spooledPairs(b, sp)
				busy += float64(res.Timings.VerifyBusy)
				sp.remove()
				b.StartTimer()
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(in.total*b.N)/s, "claims/s")
			b.ReportMetric(float64(pairs)/s, "pairs/s")
			b.ReportMetric(100*busy/1e9/s, "busy%")
			b.ReportMetric((cpuTime()-cpu)/s, "cores")
			b.ReportMetric(1000*(cpuTime()-cpu)/float64(in.total*b.N), "cpu-ms/claim")
		})
	}
}

// spooledPairs counts the (claim, passage) pairs of a spool, as the onnx
// backend scores them (a claim without passages is one pair).
func spooledPairs(b *testing.B, sp *spool) int {
	n := 0
	if err := sp.each(func(_ int, v verified) error {
		n += max(1, len(v.Passages))
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkVerifyRetrieved(b *testing.B) {
	newV, ok := benchVerifiers(b)["onnx-tiny"]
	if !ok {
		b.Skip("ORT_LIB not set")
	}
	o := benchOptions(b)
	ctx := context.Background()
	ix, err := o.openIndex(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var cs []claims.Claim
	if err := claims.Scan(ctx, o.ClaimsPath, nil, func(c claims.Claim) error { cs = append(cs, c); return nil }); err != nil {
		b.Fatal(err)
	}
	ps, err := Retriever{Index: ix.Index, K: o.K}.Pairs(ctx, cs, 0)
	if err != nil {
		b.Fatal(err)
	}
	v, err := newV()
	if err != nil {
		b.Fatal(err)
	}
	defer closeIfCloser(v)
	n := 0
	for _, p := range ps {
		n += max(1, len(p.Passages))
	}
	sizes := []int{v.(adjudicate.BatchSizer).PreferredBatchSize()}
	if s := os.Getenv("BENCH_BATCHES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			k, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, k)
		}
	}
	for _, size := range sizes {
		b.Run("batch="+strconv.Itoa(size), func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				for lo := 0; lo < len(ps); lo += size {
					if _, err := v.Verify(ctx, ps[lo:min(lo+size, len(ps))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "pairs/s")
			b.ReportMetric((cpuTime()-cpu)/b.Elapsed().Seconds(), "cores")
		})
	}
}

func BenchmarkStageVsVerify(b *testing.B) {
	newV, ok := benchVerifiers(b)["onnx-tiny"]
	if !ok {
		b.Skip("ORT_LIB not set")
	}
	rounds := 3
	if s := os.Getenv("BENCH_ROUNDS"); s != "" {
		var err error
		if rounds, err = strconv.Atoi(s); err != nil || rounds < 1 {
			b.Fatalf("BENCH_ROUNDS=%q", s)
		}
	}
	o := benchOptions(b)
	ctx := context.Background()
	in, err := o.readInputs(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := o.openIndex(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var cs []claims.Claim
	if err := claims.Scan(ctx, o.ClaimsPath, nil, func(c claims.Claim) error { cs = append(cs, c); return nil }); err != nil {
		b.Fatal(err)
	}
	ps, err := Retriever{Index: ix.Index, K: o.K}.Pairs(ctx, cs, 0)
	if err != nil {
		b.Fatal(err)
	}
	v, err := newV()
	if err != nil {
		b.Fatal(err)
	}
	defer closeIfCloser(v)
	pairs := 0
	for _, p := range ps {
		pairs += max(1, len(p.Passages))
	}
	sched := adjudicate.SchedulerOptions{BatchSize: o.BatchSize, Workers: o.Workers}.Resolve(v)
	sides := []struct {
		name string
		run  func() int // pairs verified
	}{
		{"verify", func() int {
			jobs := make(chan adjudicate.Job[int], sched.Ahead())
			go func() {
				defer close(jobs)
				for i, p := range ps {
					jobs <- adjudicate.Job[int]{Pair: p, Item: i}
				}
			}()
			if err := adjudicate.Schedule(ctx, v, jobs, sched, func(r adjudicate.Result[int]) error { return r.Err }); err != nil {
				b.Fatal(err)
			}
			return pairs
		}},
		{"calls", func() int {
			for lo := 0; lo < len(ps); lo += sched.BatchSize {
				if _, err := v.Verify(ctx, ps[lo:min(lo+sched.BatchSize, len(ps))]); err != nil {
					b.Fatal(err)
				}
			}
			return pairs
		}},
		{"stage", func() int {
			var res Result
			sp, err := o.retrieveAndVerify(ctx, in, ix, v, &res)
			if err != nil {
				b.Fatal(err)
			}
			defer sp.remove()
			return spooledPairs(b, sp)
		}},
	}
	rate := map[string][]float64{}  // pairs/s per round
	cpuMS := map[string][]float64{} // CPU ms per pair per round
	var toVerify, toCalls []float64
	for b.Loop() {
		for r := 0; r < rounds; r++ {
			order := []int{0, 1, 2}
			if r%2 == 1 {
				order = []int{2, 1, 0}
			}
			got := map[string]float64{}
			for _, k := range order {
				side := sides[k]
				cpu, start := cpuTime(), time.Now()
				n := side.run()
				wall := time.Since(start).Seconds()
				if n != pairs {
					b.Fatalf("%s verified %d pairs, the retrieved pairs are %d", side.name, n, pairs)
				}
				got[side.name] = float64(n) / wall
				rate[side.name] = append(rate[side.name], float64(n)/wall)
				cpuMS[side.name] = append(cpuMS[side.name], 1000*(cpuTime()-cpu)/float64(n))
			}
			toVerify = append(toVerify, got["stage"]/got["verify"])
			toCalls = append(toCalls, got["stage"]/got["calls"])
			b.Logf("round %d: pairs/s verify %.0f, calls %.0f, stage %.0f; stage/verify %.3f, stage/calls %.3f",
				r+1, got["verify"], got["calls"], got["stage"], got["stage"]/got["verify"], got["stage"]/got["calls"])
		}
	}
	for _, side := range sides {
		b.ReportMetric(median(rate[side.name]), side.name+"-pairs/s")
		b.ReportMetric(median(cpuMS[side.name]), side.name+"-cpu-ms/pair")
	}
	b.ReportMetric(median(toVerify), "stage/verify")
	b.ReportMetric(median(toCalls), "stage/calls")
	b.Logf("%d claims, %d pairs, %d rounds; median stage/verify %.3f (the aim: ≥ 0.8), stage/calls %.3f",
		len(ps), pairs, rounds, median(toVerify), median(toCalls))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cpuTime is the process's CPU seconds (user and system) so far.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
