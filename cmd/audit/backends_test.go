package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toy is a backend defined entirely here: adding it touches nothing but the
// list passed to the CLI. It answers one fixed label for every claim.
type toy struct{ label int }

func (t toy) Verify(_ context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(batch))
	for i := range batch {
		out[i].Logits[t.label] = 4
		out[i].Passage = -1
	}
	return out, nil
}

func toyBackend(name string, extra ...string) adjudicate.Backend {
	return adjudicate.Backend{Name: name, Help: "answers one label", Configure: func(fs *flag.FlagSet) adjudicate.Factory {
		label := fs.Int("toy-label", 0, name+": the label index to answer")
		for _, e := range extra {
			fs.String(e, "", name+": "+e)
		}
		return func(adjudicate.Env) (adjudicate.Verifier, error) { return toy{label: *label}, nil }
	}}
}

func runBackends(t *testing.T, list []adjudicate.Backend, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runWith(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, backends: list}, args)
	return code, out.String(), errb.String()
}

func TestToyBackendThroughRun(t *testing.T) {
	demo := "../../benchdata/demo/"
	out := filepath.Join(t.TempDir(), "out")
	list := append(defaultBackends(), toyBackend("toy"))
	args := []string{"run", "--log-level", "warn", "--corpus", demo + "corpus.jsonl", "--spans", demo + "spans.jsonl",
		"--claims", demo + "claims.jsonl", "--out", out, "--calibrate", "off"}

	// One label for every claim is a degenerate verifier: allowed here, where
	// the test is the backend's own option reaching it.
	code, _, stderr := runBackends(t, list, append(args, "--verifier", "toy", "--toy-label", "1", "--allow-degenerate-verifier")...)
	require.Equal(t, exitOK, code, stderr)
	recs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	for _, r := range recs {
		if !r.Abstained {
			require.NotNil(t, r.VerifierLabel)
			assert.Equal(t, "unsupported", *r.VerifierLabel, "the toy backend's own option reached it")
		}
		assert.Equal(t, "toy", r.Verifier)
	}

	code, _, stderr = runBackends(t, list, append(args, "--verifier", "lexical", "--toy-label", "1")...)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, "--toy-label is an option of toy, not of --verifier lexical")

	code, _, stderr = runBackends(t, list, append(args, "--verifier", "nope")...)
	assert.Equal(t, exitInput, code)
	assert.Contains(t, stderr, "unknown verifier backend")
}

func TestBackendOptionsSharedAndColliding(t *testing.T) {
	// Two backends declaring the same option share one flag; --help lists it once
	// with both usages.
	code, stdout, _ := runBackends(t, []adjudicate.Backend{toyBackend("a", "model"), toyBackend("b", "model")}, "run", "--help")
	require.Equal(t, exitOK, code)
	assert.Equal(t, 1, strings.Count(stdout, "--model "), stdout)
	assert.Contains(t, stdout, "a: model; b: model")

	// A backend option that shadows a run flag is refused.
	code, _, stderr := runBackends(t, []adjudicate.Backend{toyBackend("c", "k")}, "run", "--corpus", "x", "--claims", "y", "--out", t.TempDir())
	assert.Equal(t, exitInternal, code)
	assert.Contains(t, stderr, "backend c declares --k")
}

func TestInterruptedMessageGivesTheResumeCommand(t *testing.T) {
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, backends: defaultBackends()}
	cmd := newRunCmd(e)
	require.NoError(t, cmd.ParseFlags([]string{"--corpus", "c.jsonl", "--claims", "my claims.jsonl", "--out", "o", "--k", "7"}))
	msg := interruptedMessage(cmd, audit.Options{OutDir: "o"}, "")
	assert.Contains(t, msg, "no verdicts were kept")
	assert.Contains(t, msg, "audit run --claims 'my claims.jsonl' --corpus c.jsonl --k 7 --out o --resume")

	msg = interruptedMessage(cmd, audit.Options{OutDir: "o", Resume: true}, "bin/audit")
	assert.Contains(t, msg, "kept in o/.cache")
	assert.Contains(t, msg, "\n  bin/audit run --claims", "the program as invoked")
	assert.Equal(t, "'it'\\''s'", shellQuote("it's"))
	assert.Equal(t, "''", shellQuote(""))
}
