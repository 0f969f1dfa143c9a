package audit

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

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
// (retrieved beforehand), in the scheduler's batches, one call at a time:
// the verifier's own ceiling on this data, to hold the stage's figure to.

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

// cpuTime is the process's CPU seconds (user and system) so far.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
