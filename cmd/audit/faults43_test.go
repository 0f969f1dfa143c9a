//go:build faults

// Fault cases of the second independent fault pass (docs/reliability.md,
// "The fault cases of the second fault pass"): endless runs, verdicts from
// verifiers that did not answer, secrets, files out of place.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
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
	// /dev/urandom five times: its first lines are sometimes short and
	// free of control bytes (a blank first line, say), and the reading
	// must stop at the first line that is not text, wherever it is.
	for _, dev := range []string{"/dev/zero", "/dev/urandom", "/dev/urandom", "/dev/urandom", "/dev/urandom", "/dev/urandom"} {
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

// overflowingTEI is a TEI server whose scores overflow (1e300, 1e7,
// -1e308) for the claims whose text has an odd length.
func overflowingTEI(t *testing.T) string {
	bad := [][]float64{{1e300, -1e300, 0}, {1e7, 0, 0}, {0, -1e308, 0}}
	n := 0
	srv := httptest.NewServer(remotetest.NewTEI(func(claim, passage string) []float64 {
		if len(claim)%2 == 1 {
			n++
			return bad[n%len(bad)]
		}
		return remotetest.TextHashScore(claim, passage)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestFaultInvalidRemoteAnswersAreErrors: a remote answer that is not a
// valid finite distribution is an error record, never a verdict of another
// verifier, unless the fallback rule is named; then every fallback verdict
// is marked, counted in summary.json and on stderr, and gateable.
func TestFaultInvalidRemoteAnswersAreErrors(t *testing.T) {
	shared(t)
	url := overflowingTEI(t)
	tei := []string{"--verifier", "tei", "--endpoint", url}
	out := filepath.Join(t.TempDir(), "out")
	// More than 1% of claims in error fails the run (exit 3); the records
	// are written.
	expect(t, runDemo(t, out, tei...), exitInternal, "could not be adjudicated")
	errs := 0
	for _, r := range readRecords(t, filepath.Join(out, "records.parquet")) {
		assert.Equal(t, "tei", r.Verifier)
		assert.NotContains(t, r.Flags, "fallback")
		if len(r.Text)%2 == 1 && r.Error == nil && r.LogitSupported != nil {
			t.Errorf("claim %s: an overflowing answer became a verdict", r.ClaimID)
		}
		if r.Error != nil {
			errs++
			assert.Contains(t, *r.Error, "invalid logits")
		}
	}
	assert.Positive(t, errs)

	out = filepath.Join(t.TempDir(), "out")
	r := runDemo(t, out, append(tei, "--rules", "all,fallback")...)
	expect(t, r, exitOK, "decided by the fallback verifier (lexical)")
	fallbacks := 0
	for _, rec := range readRecords(t, filepath.Join(out, "records.parquet")) {
		if slices.Contains(rec.Flags, "fallback") {
			fallbacks++
			assert.Equal(t, "lexical", rec.Verifier, "the verifier that produced the numbers")
			assert.Nil(t, rec.Error)
		} else {
			assert.Equal(t, "tei", rec.Verifier)
		}
	}
	assert.Positive(t, fallbacks)
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "decided by the fallback verifier")
	assert.Contains(t, r.stderr, fmt.Sprintf("%d claims had an invalid verifier answer", fallbacks))
	r = runDemo(t, filepath.Join(t.TempDir(), "out"), append(tei, "--rules", "all,fallback", "--fail-on", "rule_fallback_count>0")...)
	expect(t, r, exitGate, "rule_fallback_count")
}

// uEscape spells s with a JSON \u escape for every character.
func uEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		fmt.Fprintf(&b, `\u%04x`, c)
	}
	return b.String()
}

// echoServer is an OpenAI-compatible server (judge and extractor alike)
// that echoes the credentials it is sent in every encoding: the
// Authorization header (Bearer key, or Basic base64 of user:password), the
// key \u-escaped in the envelope and escaped twice inside the content's own
// JSON. The content is a judge's answer or an extractor's facts, by what
// the prompt asks.
func echoServer(t *testing.T, key string) string {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		n++
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.Error(w, "no such path "+r.URL.String()+" "+auth, http.StatusNotFound)
			return
		}
		echo := auth + " " + uEscape(key)
		var content string
		if strings.Contains(string(body), "facts") {
			content = `{"facts": ["The key is ` + strings.ReplaceAll(echo, `\`, `\\`) + `.", "Brivorlo Institute was founded in 1929."]}`
		} else {
			content = `{"label": "supported", "passage": null, "reason": "you sent ` + strings.ReplaceAll(echo, `\`, `\\`) + `"}`
		}
		enc, _ := json.Marshal(content)
		if n%2 == 0 {
			// The envelope spells the content's every character with \u.
			var raw string
			if err := json.Unmarshal(enc, &raw); err == nil {
				enc = []byte(`"` + uEscape(raw) + `"`)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"model":"m","choices":[{"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, enc)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// secretForms are the encodings of a secret a file or message must never
// hold.
func secretForms(secret string) []string {
	return []string{secret, uEscape(secret), strings.ReplaceAll(uEscape(secret), `\`, `\\`), url.QueryEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret)), base64.RawStdEncoding.EncodeToString([]byte(secret))}
}

// noSecretAnywhere asserts that no file under dir ("": none to look at) (records.parquet read
// through export, every other file byte for byte) and no text holds any
// form of the secrets.
func noSecretAnywhere(t *testing.T, dir string, secrets []string, texts ...string) {
	t.Helper()
	var forms []string
	for _, s := range secrets {
		forms = append(forms, secretForms(s)...)
	}
	check := func(where, s string) {
		for _, f := range forms {
			assert.NotContains(t, s, f, "a secret in %s", where)
		}
	}
	for i, s := range texts {
		check(fmt.Sprintf("text %d", i), s)
	}
	if dir == "" {
		return
	}
	files := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		files++
		check(p, string(b))
		if strings.HasSuffix(p, "records.parquet") {
			r := tool(t, time.Minute, nil, "export", "--records", p, "--format", "jsonl")
			check(p+" (exported)", r.stdout)
		}
		return nil
	}))
	assert.Positive(t, files)
}

// TestFaultSecretsInEveryEncoding: a judge and an extractor that echo the
// credentials in every encoding (the echoing judge says supported to every
// claim: degenerate by construction, hence --allow-degenerate-verifier) get none of them written — not in the
// records, the verdict cache (--resume), the extractor's cache and output,
// nor stdout or stderr (cases 7, 8, 9).
func TestFaultSecretsInEveryEncoding(t *testing.T) {
	shared(t)
	const key = "sk-fault43-Q1w2E3r4T5y6"
	t.Setenv("FAULT43_KEY", key)
	url := echoServer(t, key)
	host := strings.TrimPrefix(url, "http://")
	t.Run("judge --resume", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		r := runDemo(t, out, "--verifier", "openai", "--endpoint", url+"/v1", "--model", "m", "--api-key-env", "FAULT43_KEY", "--resume", "--allow-degenerate-verifier")
		expect(t, r, exitOK)
		noSecretAnywhere(t, out, []string{key}, r.stdout, r.stderr)
	})
	t.Run("judge with user:password in the endpoint", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		r := runDemo(t, out, "--verifier", "openai", "--endpoint", "http://alice:PW0rd-fault43@"+host+"/v1", "--model", "m", "--api-key-env", "", "--resume", "--allow-degenerate-verifier")
		expect(t, r, exitOK)
		noSecretAnywhere(t, out, []string{"PW0rd-fault43", "alice:PW0rd-fault43"}, r.stdout, r.stderr)
	})
	t.Run("extract --cache", func(t *testing.T) {
		dir := t.TempDir()
		r := tool(t, time.Minute, nil, "extract", "--input", demoDir+"outputs.jsonl", "--out", filepath.Join(dir, "claims.jsonl"), "--extractor", "openai",
			"--endpoint", url+"/v1", "--model", "m", "--api-key-env", "FAULT43_KEY", "--cache", filepath.Join(dir, "cache"))
		expect(t, r, exitOK)
		b, err := os.ReadFile(filepath.Join(dir, "claims.jsonl"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "[redacted]", "the echo was extracted, redacted")
		noSecretAnywhere(t, dir, []string{key}, r.stdout, r.stderr)
	})
	t.Run("run --outputs with the LLM extractor", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		r := tool(t, 3*time.Minute, nil, "run", "--corpus", demoDir+"corpus.jsonl", "--spans", demoDir+"spans.jsonl", "--outputs", demoDir+"outputs.jsonl",
			"--out", out, "--index", sharedIndex, "--extractor", "openai", "--extract-endpoint", url+"/v1", "--extract-model", "m", "--extract-api-key-env", "FAULT43_KEY", "--allow-degenerate-verifier")
		expect(t, r, exitOK)
		noSecretAnywhere(t, out, []string{key}, r.stdout, r.stderr)
	})
}

// TestFaultKeyGivenAsTheVariableName: the key passed to --api-key-env by
// mistake is never printed (case 10).
func TestFaultKeyGivenAsTheVariableName(t *testing.T) {
	shared(t)
	const key = "sk-proj-fault43-Zx9Yw8"
	for _, args := range [][]string{
		demoArgs(filepath.Join(t.TempDir(), "out"), "--verifier", "openai", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", key),
		{"extract", "--input", demoDir + "outputs.jsonl", "--out", filepath.Join(t.TempDir(), "c.jsonl"), "--extractor", "openai", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", key},
	} {
		r := tool(t, time.Minute, nil, args...)
		expect(t, r, exitInput, "--api-key-env")
		noSecretAnywhere(t, "", []string{key, key[:10]}, r.stdout, r.stderr)
	}
}

// TestFaultTokenInTheEndpointQuery: an endpoint with ?api_key=… works (the
// request path goes before the query) and the token is in no message or
// file (case 11).
func TestFaultTokenInTheEndpointQuery(t *testing.T) {
	shared(t)
	const token = "tok-fault43-7Hq2Lp"
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Query().Get("api_key") != token {
			http.Error(w, "bad token in "+r.URL.String(), http.StatusUnauthorized)
			return
		}
		remotetest.NewTEI(remotetest.TextHashScore).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "out")
	r := runDemo(t, out, "--verifier", "tei", "--endpoint", srv.URL+"?api_key="+token)
	expect(t, r, exitOK)
	mu.Lock()
	assert.Contains(t, paths, "/info?api_key="+token)
	mu.Unlock()
	noSecretAnywhere(t, out, []string{token}, r.stdout, r.stderr)
	// A refused token: the error names the endpoint without it.
	r = runDemo(t, filepath.Join(t.TempDir(), "out"), "--verifier", "tei", "--endpoint", srv.URL+"?api_key=wrong-"+token)
	expect(t, r, exitInput, "401")
	noSecretAnywhere(t, "", []string{token, "wrong-" + token}, r.stdout, r.stderr)
}

// TestFaultUmaskDecides: output files and folders are created 0666/0777 and
// the umask decides (case 12).
func TestFaultUmaskDecides(t *testing.T) {
	shared(t)
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	out := filepath.Join(t.TempDir(), "out")
	expect(t, tool(t, 3*time.Minute, nil, demoArgs(out, "--index", filepath.Join(out, "index"), "--resume")...), exitOK)
	n := 0
	require.NoError(t, filepath.WalkDir(out, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		require.NoError(t, err)
		if p != out {
			assert.Zero(t, st.Mode().Perm()&0o077, "%s is %v under umask 077", p, st.Mode().Perm())
			n++
		}
		return nil
	}))
	assert.Greater(t, n, 10)
}

// TestFaultLinksInsideOut: links planted inside --out are never written
// through (case 13).
func TestFaultLinksInsideOut(t *testing.T) {
	shared(t)
	root := t.TempDir()
	victim := filepath.Join(root, "vic")
	require.NoError(t, os.Mkdir(victim, 0o755))
	t.Run("lock file linked outside", func(t *testing.T) {
		out := filepath.Join(root, "out1")
		require.NoError(t, os.Mkdir(out, 0o755))
		require.NoError(t, os.Symlink("../vic/newfile", filepath.Join(out, ".claimaudit-out.lock")))
		expect(t, runDemo(t, out), exitInput, "symbolic link")
	})
	t.Run(".cache linked outside", func(t *testing.T) {
		out := filepath.Join(root, "out2")
		require.NoError(t, os.Mkdir(out, 0o755))
		require.NoError(t, os.Symlink("../vic", filepath.Join(out, ".cache")))
		expect(t, runDemo(t, out, "--resume", "--force"), exitInput, "symbolic link")
	})
	t.Run("verdicts.db linked outside", func(t *testing.T) {
		out := filepath.Join(root, "out3")
		expect(t, runDemo(t, out, "--resume"), exitOK)
		db := filepath.Join(out, ".cache", "verdicts.db")
		require.NoError(t, os.Remove(db))
		require.NoError(t, os.Symlink("../../vic/verdicts.db", db))
		r := runDemo(t, out, "--resume")
		assert.Equal(t, exitInput, r.code, r.stderr)
	})
	t.Run("owned mark linked outside", func(t *testing.T) {
		out := filepath.Join(root, "out4")
		expect(t, runDemo(t, out), exitOK)
		// The next run's cache folder is new: plant its mark as a link first.
		require.NoError(t, os.Mkdir(filepath.Join(out, ".cache"), 0o755))
		require.NoError(t, os.Symlink("../../vic/owned", filepath.Join(out, ".cache", ".claimaudit-owned")))
		r := runDemo(t, out, "--resume", "--force")
		assert.NotEqual(t, exitOK, r.code, r.stderr)
	})
	entries, err := os.ReadDir(victim)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing was written outside --out")
}

// TestFaultRefusedOutLeavesNothing: a refused --out gets no lock file, and
// a folder the command created for it goes again (case 14).
func TestFaultRefusedOutLeavesNothing(t *testing.T) {
	shared(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("x"), 0o644))
	expect(t, runDemo(t, dir), exitInput, "did not write")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the user's file")
	assert.Equal(t, "mine.txt", entries[0].Name())
	// calibrate and report refuse the same way.
	expect(t, tool(t, time.Minute, nil, "report", "--records", "x.parquet", "--out", dir), exitInput)
	entries, _ = os.ReadDir(dir)
	assert.Len(t, entries, 1)
}

// TestFaultFolderNamedLikeARunFile: a folder of the user's named like a
// run's file is refused even with --force, before the folder is marked as
// committing (case 15).
func TestFaultFolderNamedLikeARunFile(t *testing.T) {
	shared(t)
	for _, name := range []string{"summary.json", "records.parquet"} {
		out := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(out, name), 0o755))
		r := runDemo(t, out, "--force")
		expect(t, r, exitInput, name, "never folders")
		_, err := os.Stat(filepath.Join(out, ".claimaudit-out.json"))
		assert.True(t, os.IsNotExist(err), "no marker: the folder was never committing")
		noLeftovers(t, out)
	}
}

// TestFaultSpreadsheetAndTerminalInjection: claim and corpus text that a
// spreadsheet would run as a formula is neutralized in review's queue.csv
// as in export's CSV (case 16), and terminal escape sequences from the
// corpus are printed escaped by search and in messages (case 17).
func TestFaultSpreadsheetAndTerminalInjection(t *testing.T) {
	shared(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus.jsonl")
	claims := filepath.Join(dir, "claims.jsonl")
	require.NoError(t, os.WriteFile(corpus, []byte(`{"doc_id":"d1","text":"The Harlow bridge opened in 1850. \u001b]0;pwned\u0007\u001b[2J\u001b[H Harlow is a town."}`+"\n"), 0o644))
	var cl strings.Builder
	for i, text := range []string{"+SUM(1,1) Harlow bridge opened in 1850.", "\t=1+1 Harlow bridge opened in 1850.", "@cmd Harlow bridge", "-2+3 Harlow", " =HYPERLINK(\"x\") Harlow"} {
		b, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("c%d", i), "text": text})
		cl.Write(append(b, '\n'))
	}
	require.NoError(t, os.WriteFile(claims, []byte(cl.String()), 0o644))
	out := filepath.Join(dir, "out")
	expect(t, tool(t, 3*time.Minute, nil, "run", "--corpus", corpus, "--claims", claims, "--out", out), exitOK)
	q := filepath.Join(dir, "queue")
	expect(t, tool(t, time.Minute, nil, "review", "--run", out, "--out", q, "--n", "5"), exitOK)
	f, err := os.Open(filepath.Join(q, "queue.csv"))
	require.NoError(t, err)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	require.Len(t, rows, 6)
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(strings.TrimLeft(cell, " ")[0])) {
				if _, err := strconv.ParseFloat(cell, 64); err != nil {
					t.Errorf("queue.csv cell %q would run as a formula", cell)
				}
			}
		}
	}
	r := tool(t, time.Minute, nil, "search", "--index", filepath.Join(out, "index"), "Harlow bridge")
	expect(t, r, exitOK)
	for _, s := range []string{"\x1b", "\x07"} {
		assert.NotContains(t, r.stdout, s, "a control character printed raw")
	}
	assert.Contains(t, r.stdout, `\x1b`)
}

// TestFaultParquetOfAnotherTable: a run's Parquet file replaced by another
// of its tables is refused by every reader, naming the file (case 18).
func TestFaultParquetOfAnotherTable(t *testing.T) {
	shared(t)
	base := t.TempDir()
	ref := filepath.Join(base, "ref")
	expect(t, runDemo(t, ref), exitOK)
	swapped := func(name, with string) string {
		dir := filepath.Join(base, "swap-"+name)
		require.NoError(t, os.CopyFS(dir, os.DirFS(ref)))
		b, err := os.ReadFile(filepath.Join(ref, with))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
		return dir
	}
	recs := swapped("records.parquet", "metrics.parquet")
	recPath := filepath.Join(recs, "records.parquet")
	expect(t, tool(t, time.Minute, nil, "export", "--records", recPath, "--format", "csv"), exitInput, recPath, "is not a records table")
	expect(t, tool(t, time.Minute, nil, "diff", ref, recs), exitInput, recPath, "not the table expected")
	expect(t, tool(t, time.Minute, nil, "report", "--records", recPath, "--out", filepath.Join(base, "rep")), exitInput, "not the table expected")
	mets := swapped("metrics.parquet", "records.parquet")
	r := tool(t, time.Minute, nil, "trend", ref, mets, "--out", filepath.Join(base, "trend"))
	expect(t, r, exitInput, filepath.Join(mets, "metrics.parquet"), "not the table expected")
}

// TestFaultSmallerOnes: the smaller cases of the fault pass (case 19).
func TestFaultSmallerOnes(t *testing.T) {
	shared(t)
	t.Run("--temperature-from an edited summary.json", func(t *testing.T) {
		ref := filepath.Join(t.TempDir(), "ref")
		expect(t, runDemo(t, ref), exitOK)
		b, err := os.ReadFile(filepath.Join(ref, "summary.json"))
		require.NoError(t, err)
		for _, bad := range []string{"1e308", "1e-300", "25"} {
			edited := regexp.MustCompile(`"full_temperature": *[^,}\s]+`).ReplaceAll(b, []byte(`"full_temperature": `+bad))
			require.NotEqual(t, string(b), string(edited))
			require.NoError(t, os.WriteFile(filepath.Join(ref, "summary.json"), edited, 0o644))
			r := runDemo(t, filepath.Join(t.TempDir(), "out"), "--temperature-from", ref)
			expect(t, r, exitInput, "summary.json", "full_temperature")
			assert.NotContains(t, r.stderr, "--calibrate fixed")
		}
	})
	t.Run("plain-text outputs with invalid UTF-8", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "answer.txt")
		require.NoError(t, os.WriteFile(f, []byte("First line.\nSecond \xff line.\n"), 0o644))
		r := tool(t, time.Minute, nil, "run", "--corpus", demoDir+"corpus.jsonl", "--outputs", f, "--out", filepath.Join(t.TempDir(), "o"), "--index", sharedIndex)
		expect(t, r, exitInput, f+":2:8:")
		r = tool(t, time.Minute, nil, "extract", "--input", f, "--out", filepath.Join(t.TempDir(), "c.jsonl"))
		expect(t, r, exitInput, f+":2:8:")
	})
	t.Run("gen --mix NaN", func(t *testing.T) {
		for _, mix := range []string{"NaN,0,0", "Inf,1,1", "0,0,0"} {
			dir := filepath.Join(t.TempDir(), "set")
			expect(t, tool(t, time.Minute, nil, "gen", "--out", dir, "--claims", "20", "--mix", mix), exitInput, "--mix")
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "no partial set")
		}
	})
	t.Run("NaN in any float flag", func(t *testing.T) {
		expect(t, tool(t, time.Minute, nil, "numcheck", "--policy", "tolerance", "--rel-tol", "NaN", "--claim", "5.7", "--token", "5.8"), exitInput, "--rel-tol")
		expect(t, tool(t, time.Minute, nil, "lint", "--facts", factsFile(t), "--input", demoDir+"outputs.jsonl", "--min-similarity", "NaN"), exitInput, "--min-similarity")
	})
	t.Run("onnx leaves nothing in the temporary folder", func(t *testing.T) {
		lib := os.Getenv("ORT_LIB")
		if lib == "" {
			t.Skip("ORT_LIB not set (make faults sets it after make ort)")
		}
		tmp := t.TempDir()
		cmd := exec.Command(os.Getenv("AUDIT_BIN"), demoArgs(filepath.Join(t.TempDir(), "out"), "--verifier", "onnx", "--model", "../../adjudicate/onnx/testdata/tiny", "--log-level", "warn", "--allow-degenerate-verifier")...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "ORT_LIB="+lib)
		outb, err := cmd.CombinedOutput()
		require.NoError(t, err, string(outb))
		entries, err := os.ReadDir(tmp)
		require.NoError(t, err)
		for _, e := range entries {
			t.Errorf("left in the temporary folder: %s", e.Name())
		}
	})
}

// TestFaultOwnPass: what the follow-up fault pass (about 180 cases, given
// only the docs) found, each a case.
func TestFaultOwnPass(t *testing.T) {
	shared(t)
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	expect(t, runDemo(t, ref), exitOK)
	t.Run("integer flags of other commands have ranges", func(t *testing.T) {
		expect(t, tool(t, time.Minute, nil, "gen", "--out", filepath.Join(dir, "g1"), "--claims", "1000000000000"), exitInput, "--claims")
		expect(t, tool(t, time.Minute, nil, "gen", "--out", filepath.Join(dir, "g2"), "--claims", "10", "--rule-cases", "-1"), exitInput, "--rule-cases")
		expect(t, tool(t, time.Minute, nil, "calibrate", "--records", filepath.Join(ref, "records.parquet"), "--out", filepath.Join(dir, "c"), "--min-calibration", "-1"), exitInput, "--min-calibration")
		expect(t, tool(t, time.Minute, nil, "train", "--corpus", demoDir+"corpus.jsonl", "--claims", demoDir+"claims.jsonl", "--gold", demoDir+"gold.jsonl", "--out", filepath.Join(dir, "w.json"), "--l2", "-1"), exitInput, "--l2")
		expect(t, tool(t, time.Minute, nil, "train", "--corpus", demoDir+"corpus.jsonl", "--claims", demoDir+"claims.jsonl", "--gold", demoDir+"gold.jsonl", "--out", filepath.Join(dir, "w.json"), "--boost-depth", "100", "--boost-rounds", "1"), exitInput, "--boost-depth")
		expect(t, runDemo(t, filepath.Join(dir, "rt"), "--verifier", "tei", "--endpoint", "http://127.0.0.1:9", "--request-timeout", "-1s"), exitInput, "--request-timeout")
	})
	t.Run("empty claims from a device", func(t *testing.T) {
		expect(t, tool(t, time.Minute, nil, "validate", "--claims", "/dev/null"), exitInput, "no claims")
	})
	t.Run("an empty plain-text output is an input error", func(t *testing.T) {
		f := filepath.Join(dir, "empty.md")
		require.NoError(t, os.WriteFile(f, nil, 0o644))
		expect(t, tool(t, time.Minute, nil, "run", "--corpus", demoDir+"corpus.jsonl", "--outputs", f, "--out", filepath.Join(dir, "oe"), "--index", sharedIndex), exitInput, f+":1:1:")
	})
	t.Run("--out a folder where a file is written", func(t *testing.T) {
		folder := filepath.Join(dir, "afolder")
		require.NoError(t, os.Mkdir(folder, 0o755))
		expect(t, tool(t, time.Minute, nil, "extract", "--input", demoDir+"outputs.jsonl", "--out", folder), exitInput, "is a folder")
		expect(t, tool(t, time.Minute, nil, "export", "--records", filepath.Join(ref, "records.parquet"), "--format", "csv", "--out", folder), exitInput, "is a folder")
	})
	t.Run("--out the input", func(t *testing.T) {
		in := filepath.Join(dir, "outputs.jsonl")
		b, err := os.ReadFile(demoDir + "outputs.jsonl")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(in, b, 0o644))
		expect(t, tool(t, time.Minute, nil, "extract", "--input", in, "--out", in), exitInput, "is the input")
		expect(t, tool(t, time.Minute, nil, "lint", "--facts", factsFile(t), "--input", in, "--soften", "moderate", "--out", in), exitInput, "is the input")
		after, err := os.ReadFile(in)
		require.NoError(t, err)
		assert.Equal(t, b, after, "the input is untouched")
	})
	t.Run("gen and review never write into a run's folder", func(t *testing.T) {
		expect(t, tool(t, time.Minute, nil, "gen", "--out", ref, "--claims", "10"), exitInput, "another audit command")
		expect(t, tool(t, time.Minute, nil, "review", "--run", ref, "--out", ref, "--n", "5"), exitInput, "another audit command")
		oneRun(t, ref)
		expect(t, tool(t, time.Minute, nil, "calibrate", "--records", filepath.Join(ref, "records.parquet"), "--out", ref), exitOK)
	})
	t.Run("gen sweeps a killed gen's temporary files and honours the umask", func(t *testing.T) {
		out := filepath.Join(dir, "gen")
		require.NoError(t, os.Mkdir(out, 0o755))
		left := filepath.Join(out, ".claims.jsonl.tmp-123")
		require.NoError(t, os.WriteFile(left, []byte("partial"), 0o600))
		old := syscall.Umask(0o077)
		r := tool(t, time.Minute, nil, "gen", "--out", out, "--claims", "20")
		syscall.Umask(old)
		expect(t, r, exitOK)
		_, err := os.Stat(left)
		assert.True(t, os.IsNotExist(err), "the killed gen's file is swept")
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		for _, e := range entries {
			info, err := e.Info()
			require.NoError(t, err)
			assert.Zero(t, info.Mode().Perm()&0o077, "%s under umask 077", e.Name())
		}
	})
	t.Run("review --import of an endless or sparse CSV", func(t *testing.T) {
		q := filepath.Join(dir, "queue")
		expect(t, tool(t, time.Minute, nil, "review", "--run", ref, "--out", q, "--n", "5"), exitOK)
		sparse := filepath.Join(dir, "answers.csv")
		f, err := os.Create(sparse)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(3<<30)) // 3 GB of zeros, no disk used
		f.Close()
		expect(t, tool(t, 20*time.Second, nil, "review", "--queue", q, "--import", sparse), exitInput, "not a text file")
		long := filepath.Join(dir, "long.csv")
		require.NoError(t, os.WriteFile(long, []byte("claim_id,label,reviewer\n"+strings.Repeat("a", 20<<20)+"\n"), 0o644))
		expect(t, tool(t, 20*time.Second, nil, "review", "--queue", q, "--import", long), exitInput, "longer than")
	})
	t.Run("an endpoint that is not a URL is shown as typed, without user information", func(t *testing.T) {
		r := runDemo(t, filepath.Join(dir, "ep"), "--verifier", "tei", "--endpoint", "alice:s3cret-pw@127.0.0.1:9")
		expect(t, r, exitInput, "127.0.0.1:9")
		assert.NotContains(t, r.stderr, "s3cret-pw")
	})
}

// TestFaultInterruptGen: gen answers SIGINT while it writes (it checked
// the signal only between claims, not while the documents were written:
// 7 s after the signal on 300k claims), and leaves no partial set.
func TestFaultInterruptGen(t *testing.T) {
	shared(t)
	out := filepath.Join(t.TempDir(), "set")
	c := exec.Command(os.Getenv("AUDIT_BIN"), "gen", "--out", out, "--claims", "300000")
	var errb bytes.Buffer
	c.Stderr = &errb
	require.NoError(t, c.Start())
	for { // until it writes
		if m, _ := filepath.Glob(filepath.Join(out, ".corpus.jsonl.tmp-*")); len(m) > 0 {
			break
		}
		<-time.After(10 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.Process.Kill()
		t.Fatal("hang: gen did not stop within 5 s of SIGINT")
	}
	noPanic(t, errb.String())
	if code := c.ProcessState.ExitCode(); code != exitOK {
		assert.Equal(t, exitInterrupted, code, errb.String())
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		assert.Empty(t, entries, "an interrupted gen leaves nothing")
	}
}
