//go:build faults

// Fault cases of the second independent fault pass (docs/reliability.md,
// "The fault cases of the second fault pass"): endless runs, verdicts from
// verifiers that did not answer, secrets, files out of place.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sizedTmpfs mounts a tmpfs of the given size where the machine allows it.
func sizedTmpfs(t *testing.T, size string) string {
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).Run(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the ENOSPC cases need one", err)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// TestFaultDiskFullDuringMerge: a disk that fills while the index is merged
// (bleve's merger retries for ever and its ForceMerge ignores the context)
// is exit 3 within seconds, not a spin.
func TestFaultDiskFullDuringMerge(t *testing.T) {
	shared(t)
	for _, size := range []string{"500k", "700k", "900k"} {
		t.Run(size, func(t *testing.T) {
			dir := sizedTmpfs(t, size)
			r := tool(t, time.Minute, nil, "run", "--corpus", demoDir+"corpus.jsonl", "--spans", demoDir+"spans.jsonl",
				"--claims", demoDir+"claims.jsonl", "--out", filepath.Join(dir, "out"))
			expect(t, r, exitInternal, "no space left on device")
			noLeftovers(t, filepath.Join(dir, "out"))
		})
	}
}

// factsFile writes a small known-facts file for audit lint.
func factsFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "facts.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"id":"acc","description":"detection accuracy on the public benchmark","value":"94%"}`+"\n"), 0o644))
	return p
}

// fifo makes a named pipe nobody writes to.
func fifo(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "claims.fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	return p
}

// TestFaultFIFOInputs: a FIFO given as an input is refused before it is
// opened (an open blocks until a writer comes), by every command.
func TestFaultFIFOInputs(t *testing.T) {
	shared(t)
	p := fifo(t)
	out := filepath.Join(t.TempDir(), "out")
	facts := factsFile(t)
	for _, args := range [][]string{
		{"run", "--corpus", demoDir + "corpus.jsonl", "--claims", p, "--out", out, "--index", sharedIndex},
		{"run", "--corpus", demoDir + "corpus.jsonl", "--claims", demoDir + "claims.jsonl", "--gold", p, "--out", out, "--index", sharedIndex},
		{"validate", "--claims", p},
		{"validate", "--corpus", p},
		{"validate", "--corpus", demoDir + "corpus.jsonl", "--claims", demoDir + "claims.jsonl", "--gold", p},
		{"lint", "--facts", p, "--input", demoDir + "outputs.jsonl"},
		{"lint", "--facts", facts, "--input", p},
		{"extract", "--input", p, "--out", filepath.Join(t.TempDir(), "claims.jsonl")},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			expect(t, tool(t, 20*time.Second, nil, args...), exitInput, "not a regular file")
		})
	}
}

// TestFaultEndlessStreams: a stream that is not JSONL text (/dev/zero,
// /dev/urandom) is refused at its first line, by every reader.
func TestFaultEndlessStreams(t *testing.T) {
	shared(t)
	for _, dev := range []string{"/dev/zero", "/dev/urandom"} {
		for _, args := range [][]string{
			{"validate", "--claims", dev},
			{"validate", "--corpus", dev},
			{"lint", "--facts", factsFile(t), "--input", dev},
			{"lint", "--facts", dev, "--input", demoDir + "outputs.jsonl"},
		} {
			t.Run(dev+" "+strings.Join(args[:2], " "), func(t *testing.T) {
				r := tool(t, 20*time.Second, nil, args...)
				assert.NotEqual(t, exitOK, r.code)
				assert.NotEqual(t, exitInterrupted, r.code)
				assert.NotContains(t, r.stderr, "out of memory")
			})
		}
	}
}

// TestFaultFilesReadWholeAreBounded: every file the tool reads whole,
// given as /dev/zero (or a link to it), is refused with the path named —
// never read to an out-of-memory crash.
func TestFaultFilesReadWholeAreBounded(t *testing.T) {
	shared(t)
	model := t.TempDir()
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(model, "tokenizer.json")))
	require.NoError(t, os.WriteFile(filepath.Join(model, "config.json"), []byte(`{"id2label":{"0":"entailment","1":"neutral","2":"contradiction"}}`), 0o644))
	out := filepath.Join(t.TempDir(), "out")
	remote := []string{"--endpoint", "http://127.0.0.1:9/v1", "--model", "m"}
	for name, extra := range map[string][]string{
		"--weights":      {"--weights", "/dev/zero"},
		"judge --prompt": append([]string{"--verifier", "openai", "--prompt", "/dev/zero"}, remote...),
		"--ca-cert":      append([]string{"--verifier", "openai", "--ca-cert", "/dev/zero"}, remote...),
		"tokenizer.json": {"--verifier", "triton", "--endpoint", "http://127.0.0.1:9", "--model", model},
	} {
		t.Run(name, func(t *testing.T) {
			r := runDemo(t, out, extra...)
			assert.NotEqual(t, exitOK, r.code)
			assert.Contains(t, r.stderr, "not a regular file")
			assert.NotContains(t, r.stderr, "out of memory")
		})
	}
	t.Run("extractor --prompt", func(t *testing.T) {
		r := tool(t, time.Minute, nil, "extract", "--input", demoDir+"outputs.jsonl", "--out", filepath.Join(t.TempDir(), "c.jsonl"), "--extractor", "openai", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--prompt", "/dev/zero")
		assert.Equal(t, exitInput, r.code, r.stderr)
		assert.Contains(t, r.stderr, "not a regular file")
	})
	t.Run("--policy-file", func(t *testing.T) {
		r := tool(t, time.Minute, nil, "numcheck", "--policy-file", "/dev/zero", "--claim", "40%", "--token", "40%")
		expect(t, r, exitInput, "--policy-file", "not a regular file")
	})
}

// TestFaultIntegerFlagsHaveRanges: integer flags that size memory are
// refused outside their range (exit 2 naming the flag and the range), before
// any work.
func TestFaultIntegerFlagsHaveRanges(t *testing.T) {
	shared(t)
	for _, args := range [][]string{
		{"--batch-size", "1000000000"}, {"--workers", "1000000"}, {"--k", "100000000"}, {"--source-slices", "-2"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			r := runDemo(t, out, args...)
			expect(t, r, exitInput, args[0], "outside [")
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no output folder for a refused run")
		})
	}
	expect(t, tool(t, time.Minute, nil, "search", "--index", sharedIndex, "--k", "1000000000", "x"), exitInput, "--k")
	expect(t, tool(t, time.Minute, nil, "report", "--records", "x.parquet", "--out", t.TempDir(), "--source-slices", "-5"), exitInput, "--source-slices")
}
