package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/metrics"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ptrTo[T any](v T) *T { return &v }

func wrong(id, text string, conf float64) Record {
	return Record{ClaimID: id, Text: text, GoldLabel: ptrTo("unsupported"), PredictedLabel: ptrTo("supported"),
		Confidence: ptrTo(conf), Correct: ptrTo(false), Verdict: "supported",
		Evidence:     []Evidence{{DocID: "d1", PassageID: "d1#0", Snippet: "nothing here"}, {DocID: "d2", PassageID: "d2#3", Snippet: `The tower is 300 metres <b>tall</b>.`, Start: 10, End: 46}},
		EvidenceUsed: &EvidenceUsed{PassageID: "d2#3", Rank: 2}, Meta: map[string]string{"topic": `<i>x</i>`}}
}

func TestReportHTMLEscapesAndIsSelfContained(t *testing.T) {
	in := crossFitted("r<1>", outcomes(300, 4), 1, 50)
	in.Errors = []Record{wrong("c<1>", `The tower is <script>alert("x")</script> 300 metres tall.`, 0.97)}
	tab, err := Compute(in)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, tab.Write(dir))
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	h := string(b)

	assert.NotContains(t, strings.ToLower(h), "<script", "claim text never becomes markup")
	assert.Contains(t, h, `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`, "the claim renders as text")
	assert.Contains(t, h, `&lt;b&gt;`, "passage text is escaped too")
	assert.Contains(t, h, `topic=&lt;i&gt;x&lt;/i&gt;`, "metadata is escaped")
	assert.Contains(t, h, "c&lt;1&gt;")
	assert.Contains(t, h, "<mark>tower</mark>", "words the claim shares are marked in the deciding passage")
	assert.Contains(t, h, "passage d2#3 (rank 2, document d2")

	// Self-contained: every image is inline SVG data, nothing is fetched.
	assert.Equal(t, 4, strings.Count(h, `src="data:image/svg`))
	for _, ext := range []string{`src="http`, `href="http`, `src="//`, "@import", "url("} {
		assert.NotContains(t, h, ext)
	}
	assert.Contains(t, h, "Content-Security-Policy")
	for _, part := range []string{"Headline", "95% interval", "majority-class baseline", "Your gates", "Built-in quality gates (informational)", "Confusion", "Slices", "Worst-calibrated slice", "Misclassified claims", "Glossary", "tier-1 FA rate (÷ gold negatives)"} {
		assert.Contains(t, h, part)
	}
	// The abstained count is a number, not a printed pointer.
	assert.NotContains(t, h, "%!")
	assert.Regexp(t, `<tr><td>abstained</td><td>[0-9]+</td>`, h)
}

func TestErrorPickerKeepsMostConfidentErrors(t *testing.T) {
	p := NewErrorPicker(3)
	p.Add(Record{ClaimID: "right", Correct: ptrTo(true), Confidence: ptrTo(0.99)})
	p.Add(Record{ClaimID: "abstained", Confidence: ptrTo(0.99)})
	for i, c := range []float64{0.5, 0.9, 0.7, 0.9, 0.6} {
		p.Add(Record{ClaimID: string(rune('a' + i)), Correct: ptrTo(false), Confidence: ptrTo(c)})
	}
	var ids []string
	for _, r := range p.Records() {
		ids = append(ids, r.ClaimID)
	}
	assert.Equal(t, []string{"b", "d", "c"}, ids, "highest confidence first, ties in input order")
}

func TestSnippetBound(t *testing.T) {
	assert.Equal(t, "a b c", Snippet("a \n b\t\tc "))
	long := strings.Repeat("word ", 200)
	s := Snippet(long)
	assert.LessOrEqual(t, utf8.RuneCountInString(s), SnippetRunes+1)
	assert.True(t, strings.HasSuffix(s, "word…"), "cut at a space, with an ellipsis: %q", s[len(s)-12:])
	nospace := strings.Repeat("é", 1000)
	assert.Equal(t, SnippetRunes+1, utf8.RuneCountInString(Snippet(nospace)), "code points, not bytes")
}

func TestMarkShared(t *testing.T) {
	segs := markShared("Paris is the capital of France.", "The capital of France is Lyon")
	var marked []string
	for _, s := range segs {
		if s.Hit {
			marked = append(marked, s.Text)
		}
	}
	assert.Equal(t, []string{"capital", "France"}, marked, "words of four letters or more")
}

// An unlabelled run's report leads with what it knows and says once what
// needs gold: no rows of —, no empty plots, no 0 / — confusion, and never
// "no claim was misclassified", which reads like a perfect score.
func TestUnlabelledReportLeadsWithWhatItKnows(t *testing.T) {
	outs := outcomes(300, 4)
	for i := range outs {
		outs[i].Gold = metrics.Unknown
	}
	tab, err := Compute(Input{RunID: "r", Outcomes: outs, Seed: 1, Resamples: 50})
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, tab.Write(dir))
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	h := string(b)
	assert.Equal(t, 1, strings.Count(h, "need gold"), "said once")
	assert.Contains(t, h, "What the run knows without gold")
	for _, known := range []string{"coverage", "pass rate", "mean confidence", "<td>supported</td>", "Built-in quality gates", "evidence coverage", "Over 3 model outputs", "Confidence by predicted label"} {
		assert.Contains(t, h, known)
	}
	for _, gone := range []string{"No answered, labelled claim was misclassified", "Reliability diagram", "Risk–coverage", "gold \\ predicted",
		"<td>accuracy</td>", "ECE (10 bins)</td>", "calibration bound (p ≥ 0.8)", "Slices (calibrated)", "warning: no gold labels", "from gold"} {
		assert.NotContains(t, h, gone)
	}
	assert.Equal(t, 1, strings.Count(h, `src="data:image/svg`), "only the plot that needs no gold")
	assert.NotRegexp(t, `<td>[^<]*</td><td>—</td><td></td><td>—</td>`, h, "no headline row of dashes")

	// With gold, the same report shows all of it and no such note.
	lab, err := Compute(Input{RunID: "r", Outcomes: outcomes(300, 4), Seed: 1, Resamples: 50})
	require.NoError(t, err)
	require.NoError(t, lab.Write(dir))
	b, err = os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "need gold")
	assert.Contains(t, string(b), "Reliability diagram")
}
