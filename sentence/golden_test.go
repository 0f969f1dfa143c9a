package sentence

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenRule is one of pySBD's English golden rules (testdata/pysbd_golden_en.json,
// from github.com/nipunsadvilkar/pySBD, MIT licence; the rules come from the
// pragmatic_segmenter project).
type goldenRule struct {
	N     int      `json:"n"`
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Want  []string `json:"want"`
}

func loadGolden(t testing.TB) []goldenRule {
	data, err := os.ReadFile(filepath.Join("testdata", "pysbd_golden_en.json"))
	require.NoError(t, err)
	var f struct {
		Rules []goldenRule `json:"rules"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Len(t, f.Rules, 48)
	return f.Rules
}

// TestPySBDGoldenRules measures how many of pySBD's 48 English golden rules
// the splitter passes (the figure in BENCHMARKS.md), and holds the rules it
// passes today so that a change cannot lose one silently.
func TestPySBDGoldenRules(t *testing.T) {
	// Known failures: 18 (a.m./P.M. before "Mr." — needs to know that "At 5
	// a.m." has no verb yet), 31–39 (lists written on one line, "1.) The first
	// item 2.) The second item": markers are recognised only at a line start,
	// and removed there, where pySBD keeps them) and 48 (a 4-dot ellipsis
	// that pySBD moves to the next sentence).
	knownFailures := map[int]bool{18: true, 31: true, 32: true, 33: true, 34: true, 35: true, 36: true, 37: true, 38: true, 39: true, 48: true}
	pass := 0
	for _, r := range loadGolden(t) {
		got := sentenceTexts(r.Text)
		ok := assert.ObjectsAreEqual(r.Want, got)
		if ok {
			pass++
		}
		if !knownFailures[r.N] {
			assert.Equal(t, r.Want, got, "rule %d (%s)", r.N, r.Title)
		}
	}
	t.Logf("pySBD English golden rules: %d/48 pass", pass)
	assert.Equal(t, 48-len(knownFailures), pass, "a known failure now passes: take it off the list")
}
