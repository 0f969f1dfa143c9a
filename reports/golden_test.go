package reports

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "%s (go test ./reports -update refreshes it)", name)
}

// TestGoldenTablesAndSummary pins the terminal tables and summary.json of
// a fixed set of outcomes.
func TestGoldenTablesAndSummary(t *testing.T) {
	tab, err := Compute(crossFitted("golden", outcomes(240, 9), 3, 100))
	require.NoError(t, err)
	gates, err := ParseGates("tier1_fa_conditional>0.05,coverage<0.5,latency_p99_ms>100")
	require.NoError(t, err)
	tab.Summary.Gates = Check(gates, &tab.Summary)
	var buf bytes.Buffer
	require.NoError(t, PrintTables(&buf, &tab.Summary))
	golden(t, "tables.golden.txt", buf.Bytes())
	js, err := json.MarshalIndent(tab.Summary, "", "  ")
	require.NoError(t, err)
	golden(t, "summary.golden.json", append(js, '\n'))
}
