package main

import (
	"os"
	"path/filepath"
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
