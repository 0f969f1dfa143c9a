package reports

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24 case 14: text cells a spreadsheet would run as a formula are
// prefixed with a quote in the CSV export; numbers (negative ones too)
// and the JSONL export are unchanged.
func TestCSVExportNeutralizesFormulas(t *testing.T) {
	logit := -1.5
	recs := []Record{
		{ClaimID: "=HYPERLINK(\"http://x\")", Text: "+1+1", Rationale: "@SUM(A1)", LogitSupported: &logit},
		{ClaimID: "-2", Text: "\tcmd", Rationale: "\rx"},
		{ClaimID: "ok", Text: "a = b", Rationale: "fine"},
	}
	var buf bytes.Buffer
	require.NoError(t, ExportRecords(&buf, ExportCSV, recs))
	rows, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	cols := RecordColumns()
	col := func(name string) int {
		for i, c := range cols {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	id, text, why, ls := col("claim_id"), col("text"), col("rationale"), col("logit_supported")
	assert.Equal(t, "'=HYPERLINK(\"http://x\")", rows[1][id])
	assert.Equal(t, "'+1+1", rows[1][text])
	assert.Equal(t, "'@SUM(A1)", rows[1][why])
	assert.Equal(t, "-1.5", rows[1][ls], "a number is not text")
	assert.Equal(t, "'-2", rows[2][id])
	assert.Equal(t, "'\tcmd", rows[2][text])
	assert.Equal(t, "'\rx", rows[2][why])
	assert.Equal(t, "ok", rows[3][id])
	assert.Equal(t, "a = b", rows[3][text])

	buf.Reset()
	require.NoError(t, ExportRecords(&buf, ExportJSONL, recs[:1]))
	assert.Contains(t, buf.String(), `"+1+1"`, "JSONL keeps text as it is")
}

// Issue 24 case 24: a run whose manifest.json is there but unreadable is
// an error naming the file, not the warning "no manifest.json".
func TestDiffRefusesAnUnreadableManifest(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"run_id": "ab`), 0o644))
	_, err := LoadRun(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreadable run manifest")
	assert.Contains(t, err.Error(), filepath.Join(dir, "manifest.json"))
}
