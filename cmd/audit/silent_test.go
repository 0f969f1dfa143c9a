package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoSilentSuccessExitCodes: each way a nightly job could pass quietly,
// with the exit code it gets. Partial gold and a sample of the claims with
// the full gold file succeed and say so; --strict-gold and a diff of
// unrelated runs are input errors (exit 2).
func TestNoSilentSuccessExitCodes(t *testing.T) {
	demo := "../../benchdata/demo/"
	dir := t.TempDir()
	firstLines := func(src, dst string, n int) string {
		f, err := os.Open(src)
		require.NoError(t, err)
		defer f.Close()
		var b strings.Builder
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for i := 0; i < n && sc.Scan(); i++ {
			b.WriteString(sc.Text() + "\n")
		}
		p := filepath.Join(dir, dst)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	halfGold := firstLines(demo+"gold.jsonl", "half-gold.jsonl", 300)
	empty := firstLines(demo+"claims.jsonl", "empty.jsonl", 0)
	sample := firstLines(demo+"claims.jsonl", "sample.jsonl", 100)
	base := []string{"run", "--corpus", demo + "corpus.jsonl", "--spans", demo + "spans.jsonl", "--log-level", "warn"}
	arg := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }
	tests := []struct {
		name   string
		args   []string
		want   int
		stdout string
		stderr string // a warning: logged on stderr, never among the results
	}{
		{"no claims", arg("--claims", empty, "--out", filepath.Join(dir, "empty")), exitInput, "", ""},
		{"partial gold", arg("--claims", demo+"claims.jsonl", "--gold", halfGold, "--out", filepath.Join(dir, "half")), exitOK, "600 claims (300 of 600 labelled)", ""},
		{"sample with full gold", arg("--claims", sample, "--gold", demo+"gold.jsonl", "--out", filepath.Join(dir, "sample")), exitOK,
			"100 claims → ", "500 gold labels name claims not in this run and were ignored"},
		{"sample with full gold, strict", arg("--claims", sample, "--gold", demo+"gold.jsonl", "--out", filepath.Join(dir, "strict"), "--strict-gold"), exitInput, "", ""},
		{"diff of a run and a sample of it (other inputs)", []string{"diff", filepath.Join(dir, "half"), filepath.Join(dir, "sample")}, exitInput, "", ""},
		{"the same, allowed", []string{"diff", filepath.Join(dir, "half"), filepath.Join(dir, "sample"), "--allow-different-inputs"}, exitOK, "100 shared claims", ""},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		got := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
		require.Equal(t, tt.want, got, "%s: stdout:\n%s\nstderr:\n%s", tt.name, out.String(), errOut.String())
		assert.Contains(t, out.String(), tt.stdout, tt.name)
		assert.Contains(t, errOut.String(), tt.stderr, tt.name)
		assert.NotContains(t, out.String(), "warning", tt.name)
		if got == exitInput {
			assert.NotEmpty(t, errOut.String(), "%s: a failure says why", tt.name)
		}
	}
	for _, d := range []string{"strict", "empty"} {
		_, err := os.Stat(filepath.Join(dir, d, "summary.json"))
		assert.True(t, os.IsNotExist(err), "%s: a refused run writes no summary", d)
	}
}
