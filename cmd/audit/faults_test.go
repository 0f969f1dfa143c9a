//go:build faults

// The fault suite (make faults): every case runs the audit binary
// ($AUDIT_BIN) under a timeout and asserts no panic, no hang, the
// documented exit code, and either identical records or a refusal.
// docs/reliability.md lists the cases and their guarantees.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const demoDir = "../../benchdata/demo/"

type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// tool runs the audit binary with a deadline; a case that outlives it hangs.
func tool(t *testing.T, limit time.Duration, stdin []byte, args ...string) result {
	t.Helper()
	bin := os.Getenv("AUDIT_BIN")
	if bin == "" {
		t.Skip("AUDIT_BIN not set: run 'make faults'")
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--log-level", "warn"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	began := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), took: time.Since(began)}
	if ctx.Err() != nil {
		t.Fatalf("hang: audit %s did not finish within %s\nstderr: %s", strings.Join(args, " "), limit, r.stderr)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	noPanic(t, r.stderr)
	return r
}

func noPanic(t *testing.T, stderr string) {
	t.Helper()
	for _, s := range []string{"panic:", "goroutine ", "fatal error:", "SIGSEGV"} {
		if strings.Contains(stderr, s) {
			t.Fatalf("the tool crashed (%q):\n%s", s, stderr)
		}
	}
}

func expect(t *testing.T, r result, code int, stderrHas ...string) {
	t.Helper()
	assert.Equal(t, code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	for _, s := range stderrHas {
		assert.Contains(t, r.stderr, s)
	}
}

var (
	sharedOnce  sync.Once
	sharedIndex string
	reference   []reports.Record
)

// shared builds the demo index once, and the reference records of a plain run.
func shared(t *testing.T) string {
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "faults-shared-")
		require.NoError(t, err)
		sharedIndex = filepath.Join(dir, "index")
		expect(t, tool(t, 2*time.Minute, nil, "index", "--corpus", demoDir+"corpus.jsonl", "--spans", demoDir+"spans.jsonl", "--index", sharedIndex), 0)
		out := filepath.Join(dir, "ref")
		expect(t, runDemo(t, out), 0)
		reference = readRecords(t, filepath.Join(out, "records.parquet"))
	})
	if sharedIndex == "" {
		t.Fatal("shared setup failed")
	}
	return sharedIndex
}

func demoArgs(out string, extra ...string) []string {
	return append([]string{"run", "--corpus", demoDir + "corpus.jsonl", "--spans", demoDir + "spans.jsonl",
		"--claims", demoDir + "claims.jsonl", "--gold", demoDir + "gold.jsonl", "--out", out, "--index", sharedIndex}, extra...)
}

func runDemo(t *testing.T, out string, extra ...string) result {
	return tool(t, 3*time.Minute, nil, demoArgs(out, extra...)...)
}

// readRecords reads records with their latency, run instance, start time
// and decision time cleared: the columns that name the execution and the
// machine, not the inputs.
func readRecords(t *testing.T, path string) []reports.Record {
	t.Helper()
	rs, err := reports.ReadParquet[reports.Record](path)
	require.NoError(t, err)
	for i := range rs {
		rs[i].LatencyMS = 0
		rs[i].RunInstance, rs[i].StartedAt, rs[i].DecidedAt = "", 0, 0
	}
	return rs
}

func sameAsReference(t *testing.T, out string) {
	t.Helper()
	got := readRecords(t, filepath.Join(out, "records.parquet"))
	require.Equal(t, len(reference), len(got))
	for i := range got {
		if !assert.Equal(t, reference[i], got[i], "record %d", i) {
			return
		}
	}
}

// oneRun asserts that a folder holds one complete, committed run: every
// file of it names the same run id.
func oneRun(t *testing.T, out string) string {
	t.Helper()
	m, err := outdir.ReadMarker(out)
	require.NoError(t, err)
	require.Equal(t, outdir.StateCommitted, m.State)
	var sum struct {
		RunID string `json:"run_id"`
	}
	for _, f := range []string{"summary.json", "manifest.json"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &sum))
		assert.Equal(t, m.RunID, sum.RunID, f)
	}
	rs := readRecords(t, filepath.Join(out, "records.parquet"))
	for _, r := range rs {
		require.Equal(t, m.RunID, r.RunID, "records.parquet")
	}
	for _, f := range m.Files {
		_, err := os.Stat(filepath.Join(out, f.Name))
		assert.NoError(t, err, "the marker lists %s", f.Name)
	}
	return m.RunID
}

func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return // a folder a failed command made is removed again: nothing left
	}
	require.NoError(t, err)
	for _, e := range entries {
		for _, p := range []string{".staging-", ".spool-", ".building-", ".tmp-"} {
			assert.NotContains(t, e.Name(), p, "leftover in %s", dir)
		}
	}
}

// TestFaultFlags: NaN, Inf and out-of-range floats are refused before any
// work (no folder is created), naming the flag.
func TestFaultFlags(t *testing.T) {
	shared(t)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--calibrate", "fixed", "--temperature", "NaN"}, "--temperature"},
		{[]string{"--calibrate", "fixed", "--temperature", "1e-320"}, "--temperature"},
		{[]string{"--calibrate", "fixed", "--temperature", "0"}, "--temperature"},
		{[]string{"--calibrate", "fixed", "--temperature", "+Inf"}, "--temperature"},
		{[]string{"--abstain-below", "NaN"}, "--abstain-below"},
		{[]string{"--min-retrieval-score", "-Inf"}, "--min-retrieval-score"},
		{[]string{"--ece-threshold", "NaN"}, "--ece-threshold"},
		{[]string{"--ece-threshold", "0"}, "--ece-threshold"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r := runDemo(t, out, c.args...)
			expect(t, r, exitInput, c.flag)
			assert.Less(t, r.took, 10*time.Second, "refused before any work")
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no output folder for a refused run")
		})
	}
	out := t.TempDir()
	r := tool(t, time.Minute, nil, "calibrate", "--records", "x.parquet", "--out", out, "--ece-threshold", "NaN")
	expect(t, r, exitInput, "--ece-threshold")
}

// writeRecordsFile writes records a damaged or hand-made run might hold.
func writeRecordsFile(t *testing.T, rs []reports.Record) string {
	dir := t.TempDir()
	path := filepath.Join(dir, "records.parquet")
	w, err := reports.NewParquetWriter[reports.Record](path, reports.Meta{RunID: "r"})
	require.NoError(t, err)
	if len(rs) > 0 {
		require.NoError(t, w.Write(rs...))
	}
	require.NoError(t, w.Close())
	return path
}

// TestFaultRecordsReadBack: report and calibrate on records whose
// temperature is 0 or missing, or with a logit of 1e308 (once an endless
// loop and unbounded memory), are refused naming the file and row.
func TestFaultRecordsReadBack(t *testing.T) {
	shared(t)
	base := reference[:50]
	mutate := func(fn func(r *reports.Record)) []reports.Record {
		rs := append([]reports.Record(nil), base...)
		fn(&rs[7])
		return rs
	}
	big := 1e308
	for name, rs := range map[string][]reports.Record{
		"temperature 0": mutate(func(r *reports.Record) { r.Temperature = 0 }),
		"logit 1e308":   mutate(func(r *reports.Record) { r.LogitSupported, r.LogitUnsupp = &big, &big }),
		"all temperatures": func() []reports.Record {
			rs := append([]reports.Record(nil), base...)
			for i := range rs {
				rs[i].Temperature = 0
			}
			return rs
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			path := writeRecordsFile(t, rs)
			expect(t, tool(t, time.Minute, nil, "report", "--records", path, "--out", filepath.Join(t.TempDir(), "rep")), exitInput, "row ")
			expect(t, tool(t, time.Minute, nil, "calibrate", "--records", path, "--out", filepath.Join(t.TempDir(), "cal")), exitInput, "row ")
		})
	}
	t.Run("no rows", func(t *testing.T) {
		path := writeRecordsFile(t, nil)
		expect(t, tool(t, time.Minute, nil, "report", "--records", path, "--out", filepath.Join(t.TempDir(), "rep")), exitInput, "no records")
	})
	t.Run("byte flips", func(t *testing.T) {
		good, err := os.ReadFile(filepath.Join(filepath.Dir(sharedIndex), "ref", "records.parquet"))
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(18, 7))
		for i := 0; i < 12; i++ {
			b := bytes.Clone(good)
			off := len(b) - 1 - rng.IntN(min(len(b), 4096)) // footer and page index
			if i%2 == 0 {
				off = rng.IntN(len(b))
			}
			b[off] ^= byte(1 + rng.IntN(255))
			path := filepath.Join(t.TempDir(), "records.parquet")
			require.NoError(t, os.WriteFile(path, b, 0o644))
			r := tool(t, time.Minute, nil, "report", "--records", path, "--out", filepath.Join(t.TempDir(), "rep"))
			assert.Contains(t, []int{exitOK, exitGate, exitInput}, r.code, "flip at %d: %s", off, r.stderr)
		}
	})
}

// TestFaultVerdictCache: a damaged cache is a warning and a fresh start;
// the records are the reference's.
func TestFaultVerdictCache(t *testing.T) {
	shared(t)
	out := filepath.Join(t.TempDir(), "out")
	expect(t, runDemo(t, out, "--resume"), 0)
	db := filepath.Join(out, ".cache", "verdicts.db")
	good, err := os.ReadFile(db)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(18, 3))
	for i, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },
		func(b []byte) []byte { b[rng.IntN(80)] ^= 0xff; return b },
		func(b []byte) []byte { b[4096+16+rng.IntN(64)] ^= 0xff; return b },
		func(b []byte) []byte {
			p := rng.IntN(len(b) / 4096)
			copy(b[p*4096:], bytes.Repeat([]byte{0xa5}, 8))
			return b
		},
		func(b []byte) []byte { b[rng.IntN(len(b))] ^= 0x10; return b },
		func(b []byte) []byte { b[rng.IntN(len(b))] ^= 0x10; return b },
	} {
		t.Run(fmt.Sprint("damage ", i), func(t *testing.T) {
			require.NoError(t, os.WriteFile(db, damage(bytes.Clone(good)), 0o644))
			expect(t, runDemo(t, out, "--resume"), 0)
			sameAsReference(t, out)
			oneRun(t, out)
		})
	}
}

// TestFaultIndexDamage: a flipped byte in an index segment, or an edited
// manifest, is refused on open (exit 2, suggesting --force); 'audit index'
// notices it and --force rebuilds.
func TestFaultIndexDamage(t *testing.T) {
	shared(t)
	copyIndex := func(t *testing.T) string {
		dst := filepath.Join(t.TempDir(), "index")
		require.NoError(t, exec.Command("cp", "-r", sharedIndex, dst).Run())
		return dst
	}
	segments, err := filepath.Glob(filepath.Join(sharedIndex, "bleve", "store", "*.zap"))
	require.NoError(t, err)
	require.NotEmpty(t, segments)
	rng := rand.New(rand.NewPCG(18, 4))
	cases := map[string]func(dir string){
		"manifest counts edited": func(dir string) {
			p := filepath.Join(dir, "manifest.json")
			b, _ := os.ReadFile(p)
			var m map[string]any
			json.Unmarshal(b, &m)
			counts := m["counts"].(map[string]any)
			counts["passages"] = counts["passages"].(float64) + 1 // shifts every IDF
			b, _ = json.MarshalIndent(m, "", "  ")
			os.WriteFile(p, b, 0o644)
		},
		"segment truncated": func(dir string) {
			p := filepath.Join(dir, "bleve", "store", filepath.Base(segments[0]))
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()/2)
		},
	}
	for i := 0; i < 6; i++ {
		cases[fmt.Sprint("segment byte flip ", i)] = func(dir string) {
			p := filepath.Join(dir, "bleve", "store", filepath.Base(segments[0]))
			b, _ := os.ReadFile(p)
			b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			os.WriteFile(p, b, 0o644)
		}
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			dir := copyIndex(t)
			damage(dir)
			out := filepath.Join(t.TempDir(), "out")
			args := demoArgs(out)
			args[len(args)-1] = dir
			expect(t, tool(t, 2*time.Minute, nil, args...), exitInput, "damaged", "--force")
			expect(t, tool(t, time.Minute, nil, "search", "--index", dir, "river"), exitInput, "damaged")
			idx := []string{"index", "--corpus", demoDir + "corpus.jsonl", "--spans", demoDir + "spans.jsonl", "--index", dir}
			expect(t, tool(t, time.Minute, nil, idx...), exitInput, "--force")
			expect(t, tool(t, 2*time.Minute, nil, append(idx, "--force")...), 0)
			expect(t, tool(t, 3*time.Minute, nil, args...), 0)
			sameAsReference(t, out)
		})
	}
}

// tinyTmpfs mounts a 64 KiB tmpfs where the machine allows it.
func tinyTmpfs(t *testing.T) string {
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the ENOSPC cases need one", err)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// TestFaultDiskFull: a full disk during the index build or the run is exit
// 3 naming the path, within seconds, and leaves nothing behind.
func TestFaultDiskFull(t *testing.T) {
	shared(t)
	dir := tinyTmpfs(t)
	r := tool(t, 30*time.Second, nil, "index", "--corpus", demoDir+"corpus.jsonl", "--spans", demoDir+"spans.jsonl", "--index", filepath.Join(dir, "idx"))
	expect(t, r, exitInternal, "no space left on device", dir)
	r = runDemo(t, filepath.Join(dir, "out"))
	expect(t, r, exitInternal, "no space left on device", dir)
	noLeftovers(t, dir)
	noLeftovers(t, filepath.Join(dir, "out"))
}

// TestFaultConcurrentRuns: a second command on a held folder is refused;
// the folder ends with one run.
func TestFaultConcurrentRuns(t *testing.T) {
	shared(t)
	out := filepath.Join(t.TempDir(), "out")
	bin := os.Getenv("AUDIT_BIN")
	a := exec.Command(bin, append([]string{"--log-level", "warn"}, demoArgs(out)...)...)
	require.NoError(t, a.Start())
	// Wait until A holds the folder's lock.
	held := false
	for i := 0; i < 2000 && !held; i++ {
		f, err := os.Open(filepath.Join(out, outdir.LockFile))
		if err == nil {
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
				held = true
			} else {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			}
			f.Close()
		}
		if !held {
			<-time.After(5 * time.Millisecond) // polling a lock another process takes
		}
	}
	require.True(t, held, "run A never took the folder")
	for _, args := range [][]string{demoArgs(out, "--k", "3"), {"report", "--records", "x", "--out", out}, {"calibrate", "--records", "x", "--out", out}} {
		r := tool(t, time.Minute, nil, args...)
		if args[0] == "run" {
			expect(t, r, exitInput, "another audit command")
		} else {
			assert.Equal(t, exitInput, r.code)
		}
	}
	require.NoError(t, a.Wait())
	oneRun(t, out)
	sameAsReference(t, out)
}

// TestFaultKill: SIGKILL at random points of a run over an older run's
// folder leaves either the older run or the new one, complete — or a folder
// that says it is incomplete; the next run sweeps the leftovers and gives
// the reference records.
func TestFaultKill(t *testing.T) {
	shared(t)
	bin := os.Getenv("AUDIT_BIN")
	rng := rand.New(rand.NewPCG(18, 5))
	for i := 0; i < 8; i++ {
		t.Run(fmt.Sprint("kill ", i), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			expect(t, runDemo(t, out, "--k", "3", "--resume"), 0)
			older := oneRun(t, out)
			c := exec.Command(bin, append([]string{"--log-level", "warn"}, demoArgs(out, "--resume")...)...)
			require.NoError(t, c.Start())
			<-time.After(time.Duration(rng.IntN(3000)) * time.Millisecond) // the random kill point
			c.Process.Signal(syscall.SIGKILL)
			c.Wait()
			m, err := outdir.ReadMarker(out)
			require.NoError(t, err)
			if m.State == outdir.StateCommitted {
				id := oneRun(t, out)
				assert.True(t, id == older || id == reference[0].RunID)
			} else {
				r := tool(t, time.Minute, nil, "report", "--records", filepath.Join(out, "records.parquet"), "--out", filepath.Join(t.TempDir(), "rep"))
				expect(t, r, exitInput, "incomplete")
			}
			expect(t, runDemo(t, out, "--resume"), 0)
			oneRun(t, out)
			sameAsReference(t, out)
			noLeftovers(t, out)
		})
	}
}

// TestFaultInterrupt: SIGINT or SIGTERM at a random point: exit 130 with
// the folder as it was (nothing committed), or 0 when the run had ended.
func TestFaultInterrupt(t *testing.T) {
	shared(t)
	bin := os.Getenv("AUDIT_BIN")
	rng := rand.New(rand.NewPCG(18, 6))
	for i := 0; i < 8; i++ {
		sig := []os.Signal{syscall.SIGINT, syscall.SIGTERM}[i%2]
		t.Run(fmt.Sprint(sig, " ", i), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			expect(t, runDemo(t, out, "--k", "3"), 0)
			before, err := os.ReadFile(filepath.Join(out, outdir.MarkerFile))
			require.NoError(t, err)
			c := exec.Command(bin, append([]string{"--log-level", "warn"}, demoArgs(out)...)...)
			var errb bytes.Buffer
			c.Stderr = &errb
			require.NoError(t, c.Start())
			<-time.After(time.Duration(200+rng.IntN(2500)) * time.Millisecond) // the random signal point
			c.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				c.Process.Kill()
				t.Fatalf("hang: no exit within 20s of %v", sig)
			}
			noPanic(t, errb.String())
			after, err := os.ReadFile(filepath.Join(out, outdir.MarkerFile))
			require.NoError(t, err)
			switch code := c.ProcessState.ExitCode(); code {
			case exitInterrupted:
				assert.Equal(t, string(before), string(after), "an interrupted run commits nothing")
			case exitOK:
				sameAsReference(t, out)
			default:
				t.Fatalf("exit %d after %v: %s", code, sig, errb.String())
			}
			oneRun(t, out)
			noLeftovers(t, out)
		})
	}
}

// TestFaultOwnership: --out holding the user's files, a report over a run,
// calibrate's files of an older run, --out equal to --index.
func TestFaultOwnership(t *testing.T) {
	shared(t)
	t.Run("user's files refused, --force writes beside them", func(t *testing.T) {
		out := t.TempDir()
		os.WriteFile(filepath.Join(out, "summary.json"), []byte(`{"mine":true}`), 0o644)
		os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
		expect(t, runDemo(t, out), exitInput, "did not write", "--force")
		b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		assert.Equal(t, `{"mine":true}`, string(b))
		expect(t, runDemo(t, out, "--force"), 0)
		b, _ = os.ReadFile(filepath.Join(out, "notes.txt"))
		assert.Equal(t, "mine", string(b), "never deletes what it did not write")
		expect(t, runDemo(t, out), 0) // the kept file no longer blocks
		oneRun(t, out)
	})
	t.Run("report never replaces a run's manifest", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		expect(t, runDemo(t, out), 0)
		before, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
		r := tool(t, time.Minute, nil, "report", "--records", filepath.Join(out, "records.parquet"), "--out", out)
		expect(t, r, exitInput, "manifest")
		after, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
		assert.Equal(t, string(before), string(after))
	})
	t.Run("calibrate joins its run; the next run removes its files", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		expect(t, runDemo(t, out, "--k", "3"), 0)
		expect(t, tool(t, time.Minute, nil, "calibrate", "--records", filepath.Join(out, "records.parquet"), "--out", out, "--sweep"), 0)
		oneRun(t, out)
		_, err := os.Stat(filepath.Join(out, "temperature_sweep.parquet"))
		require.NoError(t, err)
		expect(t, runDemo(t, out), 0)
		oneRun(t, out)
		for _, f := range []string{"calibration_fit.json", "temperature_sweep.parquet", "threshold_sweep.png"} {
			_, err := os.Stat(filepath.Join(out, f))
			assert.True(t, os.IsNotExist(err), "%s of the older run was removed", f)
		}
		sameAsReference(t, out)
	})
	t.Run("--out equal to --index", func(t *testing.T) {
		dir := t.TempDir()
		args := demoArgs(dir)
		args[len(args)-1] = dir
		expect(t, tool(t, time.Minute, nil, args...), exitInput, "--index")
	})
	t.Run("leftovers of killed commands are swept", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		expect(t, runDemo(t, out), 0)
		os.MkdirAll(filepath.Join(out, ".staging-123", "x"), 0o755)
		os.WriteFile(filepath.Join(out, ".staging-123", ".records.parquet.tmp-1"), nil, 0o644)
		os.WriteFile(filepath.Join(out, ".staging-123", outdir.OwnTag), nil, 0o644) // as audit made it
		os.MkdirAll(filepath.Join(out, ".staging-456"), 0o755)                      // killed before its tag: empty
		expect(t, runDemo(t, out), 0)
		for _, n := range []string{".staging-123", ".staging-456"} {
			_, err := os.Stat(filepath.Join(out, n))
			assert.True(t, os.IsNotExist(err), n)
		}
		// A folder of the user's named like a leftover is not audit's:
		// refused, then kept with --force.
		os.MkdirAll(filepath.Join(out, ".staging-mine"), 0o755)
		os.WriteFile(filepath.Join(out, ".staging-mine", "notes.txt"), []byte("mine"), 0o644)
		expect(t, runDemo(t, out), exitInput, "holds files audit did not write: .staging-mine")
		expect(t, runDemo(t, out, "--force"), 0)
		b, err := os.ReadFile(filepath.Join(out, ".staging-mine", "notes.txt"))
		require.NoError(t, err)
		assert.Equal(t, "mine", string(b))
		os.RemoveAll(filepath.Join(out, ".staging-mine"))
		// With the index inside --out (the default), a killed build's
		// folder is swept too.
		out = filepath.Join(t.TempDir(), "out2")
		args := demoArgs(out)
		expect(t, tool(t, 3*time.Minute, nil, args[:len(args)-2]...), 0)
		os.MkdirAll(filepath.Join(out, "index.building-99", "bleve"), 0o755)
		os.WriteFile(filepath.Join(out, "index.building-99", outdir.OwnTag), nil, 0o644)
		expect(t, tool(t, 3*time.Minute, nil, args[:len(args)-2]...), 0)
		noLeftovers(t, out)
		sameAsReference(t, out)
	})
}

// TestFaultInputs: inputs that are not regular files, empty corpora,
// unknown cite ids and hostile JSONL.
func TestFaultInputs(t *testing.T) {
	shared(t)
	claims, err := os.ReadFile(demoDir + "claims.jsonl")
	require.NoError(t, err)
	t.Run("claims from a pipe are refused", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"run", "--corpus", demoDir + "corpus.jsonl", "--claims", "/dev/stdin", "--out", out, "--index", sharedIndex}
		expect(t, tool(t, time.Minute, claims, args...), exitInput, "not a regular file")
		args = []string{"run", "--corpus", demoDir + "corpus.jsonl", "--claims", demoDir + "claims.jsonl", "--gold", "/dev/stdin", "--out", out, "--index", sharedIndex}
		expect(t, tool(t, time.Minute, claims, args...), exitInput, "not a regular file")
	})
	t.Run("empty corpus: validate and index agree", func(t *testing.T) {
		empty := filepath.Join(t.TempDir(), "empty.jsonl")
		os.WriteFile(empty, nil, 0o644)
		expect(t, tool(t, time.Minute, nil, "validate", "--corpus", empty), exitInput, "no documents")
		expect(t, tool(t, time.Minute, nil, "index", "--corpus", empty, "--index", filepath.Join(t.TempDir(), "i")), exitInput, "no documents")
		r := tool(t, time.Minute, nil, "validate", "--corpus", empty, "--json")
		expect(t, r, exitInput)
		assert.NotContains(t, r.stderr, "not shown")
	})
	t.Run("unknown cite ids are reported", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "claims.jsonl")
		os.WriteFile(f, []byte(`{"id":"c1","text":"Brivorlo Institute of Technology was established in 1929.","cite":["no_such_doc"]}`+"\n"), 0o644)
		r := tool(t, time.Minute, nil, "run", "--corpus", demoDir+"corpus.jsonl", "--spans", demoDir+"spans.jsonl", "--claims", f, "--out", filepath.Join(t.TempDir(), "o"), "--index", sharedIndex)
		expect(t, r, exitOK, "no_such_doc")
	})
	t.Run("an 8 MB line is read", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "claims.jsonl")
		os.WriteFile(f, []byte(`{"id":"c1","text":"`+strings.Repeat("a", 8<<20)+`"}`+"\n"), 0o644)
		expect(t, tool(t, time.Minute, nil, "validate", "--claims", f), exitOK)
	})
	t.Run("hostile JSONL", func(t *testing.T) {
		deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
		for name, content := range map[string]string{
			"malformed":      `{"id": "c1", "text": }` + "\n",
			"invalid utf-8":  "{\"id\":\"c1\",\"text\":\"\xff\xfe\"}\n",
			"nul":            "{\"id\":\"c1\",\"text\":\"a\x00b\"}\n",
			"deep nesting":   `{"id":"c1","text":"x","meta":` + deep + "}\n",
			"not an object":  "[1,2,3]\n",
			"duplicate ids":  `{"id":"c1","text":"a"}` + "\n" + `{"id":"c1","text":"b"}` + "\n",
			"no final line ": `{"id":"c1","text":"a"`,
		} {
			t.Run(name, func(t *testing.T) {
				f := filepath.Join(t.TempDir(), "claims.jsonl")
				os.WriteFile(f, []byte(content), 0o644)
				expect(t, tool(t, time.Minute, nil, "validate", "--claims", f), exitInput)
				doc := filepath.Join(t.TempDir(), "corpus.jsonl")
				os.WriteFile(doc, []byte(strings.ReplaceAll(content, `"id"`, `"doc_id"`)), 0o644)
				expect(t, tool(t, time.Minute, nil, "validate", "--corpus", doc), exitInput)
			})
		}
	})
}

// TestFaultSameRecords: the same inputs and settings give the same records.
func TestFaultSameRecords(t *testing.T) {
	shared(t)
	for _, extra := range [][]string{{"--workers", "3", "--batch-size", "7"}, {"--resume"}} {
		out := filepath.Join(t.TempDir(), "out")
		expect(t, runDemo(t, out, extra...), 0)
		sameAsReference(t, out)
	}
}
