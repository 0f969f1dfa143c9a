package numeric

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readTagged(t *testing.T) (TagChecker, map[string]string) {
	t.Helper()
	table, err := ReadClaimTableFile(context.Background(), filepath.Join("testdata", "tagged", "table.jsonl"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join("testdata", "tagged", "outputs.jsonl"))
	require.NoError(t, err)
	texts := map[string]string{}
	for _, line := range splitLines(data) {
		var o struct{ ID, Text string }
		require.NoError(t, json.Unmarshal(line, &o))
		texts[o.ID] = o.Text
	}
	return TagChecker{Table: table, Default: PolicyExact}, texts
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	start := 0
	for i, b := range data {
		if b == '\n' {
			if i > start {
				out = append(out, data[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// TestTaggedOutputsCountedByHand: the two outputs of testdata/tagged mix
// verified, flagged, bare and malformed tags. Counted by hand:
//
//	o1: verified 5.7 (round1), 6 (round0), 1.5K (abbr), 1500 (rounded,
//	    decimals="2"); flagged 5.8 (exact fails), 7 (unknown claim id),
//	    5.7 (unknown policy); bare 2024, and 12 after the unclosed tag;
//	    malformed: unknown id, unknown policy, unclosed.
//	o2: bare 3, $29, 12%; malformed: the stray </claim>; verified "about
//	    1520" (tolerance 0.02, qualified); flagged "1520" (no qualifier).
func TestTaggedOutputsCountedByHand(t *testing.T) {
	tc, texts := readTagged(t)
	n1, e1 := tc.Check(texts["o1"])
	assert.Equal(t, Counts{Verified: 4, Flagged: 3, Bare: 2, Malformed: 3}, Count(n1, e1))
	var statuses []string
	for _, n := range n1 {
		statuses = append(statuses, n.Text+"="+n.Status)
	}
	assert.Equal(t, []string{"5.7=verified", "2024=bare", "6=verified", "5.8=flagged", "1.5K=verified",
		"1500=verified", "7=flagged", "5.7=flagged", "12=bare"}, statuses)
	require.Len(t, e1, 3)
	assert.Contains(t, e1[0].Message, `unknown claim id "clm zzz"`)
	assert.Contains(t, e1[1].Message, `policy "fuzzy" is not one of`)
	assert.Contains(t, e1[2].Message, "unclosed tag")
	assert.Equal(t, `<claim id="clm zzz" policy="exact">`, e1[0].Tag)
	assert.Equal(t, len([]rune(texts["o1"][:e1[2].Offset]))+1, e1[2].Column)

	n2, e2 := tc.Check(texts["o2"])
	assert.Equal(t, Counts{Verified: 1, Flagged: 1, Bare: 3, Malformed: 1}, Count(n2, e2))
	require.Len(t, e2, 1)
	assert.Equal(t, "closing tag without an opening one", e2[0].Message)
	assert.Equal(t, 39, e2[0].Column) // "No tags: 3 apples, $29 and 12%. Stray " is 38 characters
	assert.Equal(t, Counts{Verified: 5, Flagged: 4, Bare: 5, Malformed: 4}, Count(n1, e1).Add(Count(n2, e2)))

	// Provenance and reasons.
	assert.Equal(t, "clm 7ef6", n1[0].ClaimID)
	assert.Equal(t, "round1", n1[0].Decided)
	assert.Equal(t, "5.7", texts["o1"][n1[0].Start:n1[0].End])
	assert.Contains(t, n1[3].Reason, "5.8 differs from 5.7")
	assert.Contains(t, n2[len(n2)-1].Reason, "no qualifier")
}

// TestTagFailClosed: what a tag holds must be exactly one quantity.
func TestTagFailClosed(t *testing.T) {
	tc, _ := readTagged(t)
	for _, content := range []string{"5.7 or 9", "five point seven", "5.7abc", "n/a", ""} {
		nums, errs := tc.Check(`<claim id="clm 7ef6" policy="exact">` + content + `</claim>`)
		assert.Empty(t, errs, content)
		require.Len(t, nums, 1, content)
		assert.Equal(t, StatusFlagged, nums[0].Status, content)
		assert.Contains(t, nums[0].Reason, "unparsed text", content)
	}
	for _, tag := range []string{`<claim id="clm 7ef6" policy="exact" colour="red">5.7</claim>`,
		`<claim id="clm 7ef6" policy=exact>5.7</claim>`, `<claim id="clm 7ef6" id="clm abc">5.7</claim>`,
		`<claim policy="exact">5.7</claim>`, `<claim id="clm 7ef6" policy="exact" decimals="2">5.7</claim>`} {
		nums, errs := tc.Check(tag)
		assert.Len(t, errs, 1, tag)
		require.Len(t, nums, 1, tag)
		assert.Equal(t, StatusFlagged, nums[0].Status, tag)
	}
}

func TestClaimTableDefects(t *testing.T) {
	for _, line := range []string{
		`{"id": "a", "value": "lots"}`,
		`{"id": "a", "value": "5.7 or 9"}`,
		`{"id": "a", "value": 5, "unit": "%", "colour": 1}`,
		`{"id": "a", "value": "5 km", "unit": "kg"}`,
		`{"id": "a"}`,
		`{"id": "a", "value": 5, "year": 99}`,
	} {
		_, err := ReadClaimTable(context.Background(), strings.NewReader(line+"\n"), "t.jsonl")
		assert.ErrorContains(t, err, "t.jsonl:1:", line)
	}
	_, err := ReadClaimTable(context.Background(), strings.NewReader("{\"id\": \"a\", \"value\": 1}\n{\"id\": \"a\", \"value\": 2}\n"), "t.jsonl")
	assert.ErrorContains(t, err, "t.jsonl:2:")
}
