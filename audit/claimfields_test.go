package audit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The claim's structured fields reach records.parquet as typed columns,
// read back from the file: given fields as given, absent ones null, an
// object with nothing in it null, a number kept as text and value.
func TestRecordsCarryTheClaimsStructuredFields(t *testing.T) {
	dir := t.TempDir()
	claimsPath := filepath.Join(dir, "claims.jsonl")
	lines := `{"id":"full","text":"Karo Ridge Airport served 48.2 million passengers in Norland in 2019.","subject":"Karo Ridge Airport","predicate":"served","object":"48.2 million passengers","qualifiers":{"quantity":"48.2 million","unit":"passengers","location":"Norland","population":"adults","condition":"excluding transfers"},"timeframe":{"start":"2019-01-01","end":"2019-12-31","as_of":"2020-02-01"},"modality":"assertion","polarity":"positive","normalization":{"entities":["Karo Ridge Airport","Norland"],"value":48200000,"predicate_canonical":"passenger_count"},"type":"numeric"}
{"id":"bare","text":"The museum opens at nine."}
{"id":"some","text":"The fee is 150 dollars.","qualifiers":{"quantity":150},"timeframe":{"as_of":"2021-05-01"},"normalization":{"value":"150 dollars"},"polarity":"negative"}
`
	require.NoError(t, os.WriteFile(claimsPath, []byte(lines), 0o644))
	out := filepath.Join(dir, "out")
	o := demoOptions(t, out)
	o.ClaimsPath, o.GoldPath = claimsPath, ""
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rs := records(t, out)
	require.Len(t, rs, 3)

	full := rs[0]
	assert.Equal(t, ptr("Karo Ridge Airport"), full.Subject)
	assert.Equal(t, ptr("served"), full.Predicate)
	assert.Equal(t, ptr("48.2 million passengers"), full.Object)
	assert.Equal(t, &reports.ClaimQualifiers{Quantity: ptr("48.2 million"), Unit: ptr("passengers"), Location: ptr("Norland"),
		Population: ptr("adults"), Condition: ptr("excluding transfers")}, full.Qualifiers)
	assert.Equal(t, &reports.ClaimTimeframe{Start: ptr("2019-01-01"), End: ptr("2019-12-31"), AsOf: ptr("2020-02-01")}, full.Timeframe)
	assert.Equal(t, ptr("assertion"), full.Modality)
	assert.Equal(t, ptr("positive"), full.Polarity)
	assert.Equal(t, &reports.ClaimNormalization{Entities: []string{"Karo Ridge Airport", "Norland"}, Value: ptr("48200000"),
		ValueNum: ptr(48200000.0), PredicateCanonical: ptr("passenger_count")}, full.Normalization)

	bare := rs[1]
	assert.Nil(t, bare.Subject)
	assert.Nil(t, bare.Predicate)
	assert.Nil(t, bare.Object)
	assert.Nil(t, bare.Qualifiers, "no qualifiers: null, not a struct of nulls")
	assert.Nil(t, bare.Timeframe)
	assert.Nil(t, bare.Modality)
	assert.Nil(t, bare.Polarity)
	assert.Nil(t, bare.Normalization)

	some := rs[2]
	assert.Equal(t, &reports.ClaimQualifiers{Quantity: ptr("150"), QuantityValue: ptr(150.0)}, some.Qualifiers)
	assert.Equal(t, &reports.ClaimTimeframe{AsOf: ptr("2021-05-01")}, some.Timeframe)
	assert.Equal(t, &reports.ClaimNormalization{Entities: []string{}, Value: ptr("150 dollars")}, some.Normalization)
	assert.Equal(t, ptr("negative"), some.Polarity)
	assert.Nil(t, some.Modality)
}

// Every record says who decided it (auto: a person's labels are review's
// labels.parquet) and when, by the run's clock.
func TestRecordsSayWhoDecidedAndWhen(t *testing.T) {
	out := t.TempDir()
	o := demoOptions(t, out)
	at := time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC)
	o.Now = func() time.Time { return at }
	_, err := Run(context.Background(), o)
	require.NoError(t, err)
	rs, err := reports.ReadParquet[reports.Record](filepath.Join(out, "records.parquet"))
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	for _, r := range rs {
		assert.Equal(t, "auto", r.Reviewer)
		assert.Equal(t, at.UnixMilli(), r.DecidedAt)
	}
}

// A claim without a declared type gets one inferred (and says so), which
// the type slices use; a declared type is kept as declared.
func TestUndeclaredTypeIsInferred(t *testing.T) {
	dir := t.TempDir()
	claimsPath := filepath.Join(dir, "claims.jsonl")
	lines := `{"id":"n","text":"Quavor Harbour had 870,000 residents."}
{"id":"q","text":"The harbour is large.","qualifiers":{"quantity":"large"}}
{"id":"y","text":"Ithneith Falls was chartered in 1911."}
{"id":"tf","text":"The mayor served the harbour.","timeframe":{"start":"2001-01-01"}}
{"id":"f","text":"Kira Tesbrizen serves as mayor of Quavor Harbour."}
{"id":"d","text":"Kira Tesbrizen serves as mayor of Quavor Harbour in 1911.","type":"fact"}
`
	require.NoError(t, os.WriteFile(claimsPath, []byte(lines), 0o644))
	out := filepath.Join(dir, "out")
	o := demoOptions(t, out)
	o.ClaimsPath, o.GoldPath = claimsPath, ""
	res, err := Run(context.Background(), o)
	require.NoError(t, err)
	rs := records(t, out)
	got := map[string][2]any{}
	for _, r := range rs {
		got[r.ClaimID] = [2]any{r.ClaimType, r.ClaimTypeInferred}
	}
	assert.Equal(t, map[string][2]any{"n": {"numeric", true}, "q": {"numeric", true}, "y": {"temporal", true}, "tf": {"temporal", true},
		"f": {"fact", true}, "d": {"fact", false}}, got)
	require.NotNil(t, res.Tables.Summary.Slices["type=numeric"], "inferred types are slices")
	assert.Equal(t, 2.0, *res.Tables.Summary.Slices["type=numeric"]["n"])
}

// A record names the tags of its deciding span, as the spans file gives
// them; a window or no deciding passage has none.
func TestRecordsCarryTheDecidingSpansTags(t *testing.T) {
	out := t.TempDir()
	_, err := Run(context.Background(), demoOptions(t, out))
	require.NoError(t, err)
	b, err := os.ReadFile(demo + "spans.jsonl")
	require.NoError(t, err)
	want := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s struct {
			SpanID string   `json:"span_id"`
			Tags   []string `json:"tags"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		want[s.SpanID] = s.Tags
	}
	tagged := 0
	for _, r := range records(t, out) {
		if r.EvidenceUsed == nil || r.Evidence[r.EvidenceUsed.Rank-1].SpanID == nil {
			assert.Empty(t, r.EvidenceTags, r.ClaimID)
			continue
		}
		assert.Equal(t, want[*r.Evidence[r.EvidenceUsed.Rank-1].SpanID], r.EvidenceTags, r.ClaimID)
		if len(r.EvidenceTags) > 0 {
			tagged++
		}
	}
	assert.Positive(t, tagged)
}
