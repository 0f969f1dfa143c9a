package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24 case 5: an empty, blank or BOM-only claims file is exit 2 with a
// clear message, and no output folder is created; validate says the same.
func TestEmptyClaimsFileIsExit2WithoutOutput(t *testing.T) {
	demo := "../../benchdata/demo/"
	for name, content := range map[string]string{"empty": "", "blank": "\n  \n\t\r\n", "bom only": "\xEF\xBB\xBF", "bom and blank": "\xEF\xBB\xBF\n\n"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			claims := filepath.Join(dir, "claims.jsonl")
			require.NoError(t, os.WriteFile(claims, []byte(content), 0o644))
			out := filepath.Join(dir, "out")
			code, _, stderr := runBackends(t, defaultBackends(), "run", "--corpus", demo+"corpus.jsonl", "--claims", claims, "--out", out)
			assert.Equal(t, exitInput, code, stderr)
			assert.Contains(t, stderr, "--claims "+claims+": no claims in the file")
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no output folder")
			code, _, stderr = runBackends(t, defaultBackends(), "validate", "--claims", claims)
			assert.Equal(t, exitInput, code, stderr)
			assert.Contains(t, stderr, "no claims in the file")
		})
	}
}

// Issue 24 case 16: --folds beyond metrics.MaxFolds is a usage error
// before any work (it once ran for hours in cross-fitting).
func TestFoldsAreBounded(t *testing.T) {
	demo := "../../benchdata/demo/"
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"run", "--corpus", demo + "corpus.jsonl", "--claims", demo + "claims.jsonl", "--out", out, "--folds", "1000000"},
		{"report", "--records", "x.parquet", "--out", out, "--folds", "1000000"},
		{"calibrate", "--records", "x.parquet", "--out", out, "--folds", "1000000"},
	} {
		code, _, stderr := runBackends(t, defaultBackends(), args...)
		assert.Equal(t, exitInput, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, "--folds must be from 2 to 100", args[0])
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%s: no output folder", args[0])
	}
}

// Issue 24 case 23: a nested object that cannot be decoded says why.
func TestUndecodableQualifiersSayWhy(t *testing.T) {
	claims := filepath.Join(t.TempDir(), "claims.jsonl")
	require.NoError(t, os.WriteFile(claims, []byte(`{"id":"c1","text":"It is big.","qualifiers":{"quantity":1e999}}`+"\n"+
		`{"id":"c2","text":"It is big.","normalization":{"value":-1e999}}`+"\n"), 0o644))
	code, _, stderr := runBackends(t, defaultBackends(), "validate", "--claims", claims)
	assert.Equal(t, exitInput, code, stderr)
	assert.Regexp(t, `claims.jsonl:1:45: qualifiers: cannot decode qualifiers: .*cannot unmarshal number 1e999 into Go value of type float64`, stderr)
	assert.Regexp(t, `claims.jsonl:2:48: normalization: cannot decode normalization: .*cannot unmarshal number -1e999`, stderr)
}

// Issue 24 case 6: gold evidence ids that name nothing in the corpus are a
// warning with the count and the first few (recall and MRR would read 0).
func TestUnknownGoldEvidenceIsAWarning(t *testing.T) {
	demo := "../../benchdata/demo/"
	dir := t.TempDir()
	claims, gold := filepath.Join(dir, "claims.jsonl"), filepath.Join(dir, "gold.jsonl")
	require.NoError(t, os.WriteFile(claims, []byte(`{"id":"c1","text":"Quavor Harbour had 870,000 residents in 2023."}`+"\n"+
		`{"id":"c2","text":"Kira Tesbrizen serves as mayor of Quavor Harbour."}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(gold, []byte(`{"claim_id":"c1","label":"supported","evidence":["span_0000002"]}`+"\n"+
		`{"claim_id":"c2","label":"supported","evidence":["span_nope","doc_nope"]}`+"\n"), 0o644))
	out := filepath.Join(dir, "out")
	code, _, stderr := runBackends(t, defaultBackends(), "run", "--corpus", demo+"corpus.jsonl", "--spans", demo+"spans.jsonl",
		"--claims", claims, "--gold", gold, "--out", out, "--calibrate", "off")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "gold evidence ids name no span or document of the corpus")
	assert.Contains(t, stderr, "ids=2 of=3")
	assert.Contains(t, stderr, "doc_nope, span_nope")
}

// Issue 24 case 8: export and run --temperature-from refuse a folder whose
// commit did not finish, as report and diff do.
func TestIncompleteFolderRefusedByEveryReader(t *testing.T) {
	demo := "../../benchdata/demo/"
	dir := filepath.Join(t.TempDir(), "killed")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	// A first run killed before its commit: a lock file, no marker.
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claimaudit-out.lock"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "records.parquet"), []byte("half"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"calibration":{"fitted":true,"full_temperature":1.5}}`), 0o644))
	code, _, stderr := runBackends(t, defaultBackends(), "export", "--records", filepath.Join(dir, "records.parquet"), "--format", "csv")
	assert.Equal(t, exitInput, code, stderr)
	assert.Contains(t, stderr, "incomplete")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runBackends(t, defaultBackends(), "run", "--corpus", demo+"corpus.jsonl", "--claims", demo+"claims.jsonl",
		"--out", out, "--temperature-from", dir)
	assert.Equal(t, exitInput, code, stderr)
	assert.Contains(t, stderr, "--temperature-from")
	assert.Contains(t, stderr, "incomplete")
}

// Issue 24 case 25: a read-only file system is exit 2 (the user's choice of
// where to write) for every command, run and index alike.
func TestReadOnlyFileSystemIsExit2(t *testing.T) {
	err := &os.PathError{Op: "mkdir", Path: "/ro/out", Err: syscall.EROFS}
	assert.Equal(t, exitInput, exitCode(err))
	assert.Equal(t, exitInput, exitCode(fmt.Errorf("create index: %w", err)))
	assert.Equal(t, exitInternal, exitCode(fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC})), "a full disk stays 3")
}
