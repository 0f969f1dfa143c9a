package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/label"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The same records and seed draw the same queue, whatever the design; the
// inclusion probabilities are the design's.
func TestDrawDeterministic(t *testing.T) {
	records := syntheticRecords(90)
	for _, kind := range []estimate.Kind{estimate.Uniform, estimate.Stratified, estimate.Active} {
		a, err := Draw(records, Options{N: 30, Strategy: kind, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Draw(records, Options{N: 30, Strategy: kind, Seed: 9})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two draws with one seed differ", kind)
		}
		c, _ := Draw(records, Options{N: 30, Strategy: kind, Seed: 10})
		if reflect.DeepEqual(a.Items, c.Items) {
			t.Errorf("%s: seeds 9 and 10 drew the same queue", kind)
		}
		for _, it := range a.Items {
			switch kind {
			case estimate.Uniform:
				if it.InclusionProbability != 30.0/90 {
					t.Errorf("uniform: pi %v, want 1/3", it.InclusionProbability)
				}
			case estimate.Stratified:
				// Three predicted labels of 30 claims each, 10 drawn from each.
				if it.InclusionProbability != 10.0/30 || it.Stratum == "" {
					t.Errorf("stratified: %+v, want pi 1/3 and a stratum", it)
				}
			}
		}
	}
}

func TestReadAnswersCSV(t *testing.T) {
	records := syntheticRecords(30)
	q, _ := Draw(records, Options{N: 6, Strategy: estimate.Uniform, Seed: 1})
	dir := t.TempDir()
	if err := Write(dir, q, records, false); err != nil {
		t.Fatal(err)
	}
	// Fill in queue.csv as a spreadsheet would: two rows answered, one
	// with a bad label, the rest left empty.
	b, err := os.ReadFile(filepath.Join(dir, CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[1] = strings.TrimSuffix(lines[1], ",,,") + ",SUPPORTS,ann,"
	lines[2] = strings.TrimSuffix(lines[2], ",,,") + ",unsure,ann,hard one"
	lines[3] = strings.TrimSuffix(lines[3], ",,,") + ",probably,ann,"
	path := filepath.Join(dir, "filled.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := NewAnswers(q, 0)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := a.ReadFile(context.Background(), path, now); err != nil {
		t.Fatal(err)
	}
	if len(a.List) != 2 || a.List[0].Label != "supported" || a.List[1].Label != Unsure || a.List[1].Note != "hard one" || a.List[0].ReviewedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("answers %+v", a.List)
	}
	err = a.Errs.Err()
	var pe *jsonl.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrBadLabel) || pe.Line != 4 || pe.Field != "label" || pe.Col == 0 {
		t.Errorf("error %v: want filled.csv:4:COL: label: a bad label", err)
	}
}

func TestHumanLabel(t *testing.T) {
	ans := func(ls ...string) []Answer {
		var out []Answer
		for _, l := range ls {
			out = append(out, Answer{Label: l})
		}
		return out
	}
	for _, tc := range []struct {
		in   []Answer
		want label.Label
		why  string
	}{
		{ans("supported"), label.Supported, ""},
		{ans("supported", "unsupported", "unsupported"), label.Unsupported, ""},
		{ans("supported", "unsure"), label.Supported, ""},
		{ans("unsure", "unsure"), label.None, "unsure"},
		{ans("supported", "insufficient"), label.None, "reviewers disagree (a tie)"},
	} {
		got, why := HumanLabel(tc.in)
		if got != tc.want || why != tc.why {
			t.Errorf("%v: %q (%q), want %q (%q)", tc.in, got, why, tc.want, tc.why)
		}
	}
}

// FuzzAnswers: any bytes as an answers file give answers or positioned
// errors, never a panic, and every accepted answer is valid.
func FuzzAnswers(f *testing.F) {
	f.Add([]byte(`{"claim_id":"c001","label":"supported","reviewer":"a"}` + "\n"))
	f.Add([]byte(`{"claim_id":"c001","label":"NEI","reviewer":"a","note":"x","reviewed_at":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte("{\"claim_id\":1}\n\xff\n"))
	q := &Queue{Items: []Item{{Position: 1, ClaimID: "c001", InclusionProbability: 1}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "a.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a := NewAnswers(q, 0)
		if err := a.ReadFile(context.Background(), path, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		for _, an := range a.List {
			if an.ClaimID != "c001" || an.Reviewer == "" {
				t.Errorf("accepted %+v", an)
			}
			if _, err := time.Parse(time.RFC3339, an.ReviewedAt); err != nil {
				t.Errorf("accepted time %q", an.ReviewedAt)
			}
		}
	})
}

// The effective n and the interval widths never disagree: n_effective is
// below n_human exactly when the PPI interval is wider than the classical
// one (it was computed from variances, and the intervals are not built
// alike: "width 1.03" beside "effective n 44 (of 42)").
func TestEffectiveNAgreesWithWidths(t *testing.T) {
	records := syntheticRecords(300)
	q, err := Draw(records, Options{N: 60, Strategy: estimate.Uniform, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{"supported", "unsupported", "insufficient"}
	var answers []Answer
	for i, it := range q.Items {
		l := labels[i%3]
		if i%4 == 0 {
			l = labels[(i+1)%3]
		}
		answers = append(answers, Answer{ClaimID: it.ClaimID, Label: l, Reviewer: "r"})
	}
	res, err := Estimate(records, q, answers)
	if err != nil {
		t.Fatal(err)
	}
	classical := map[string][2]float64{}
	for _, r := range res.Rows {
		if r.Method == "classical" && r.CILow != nil {
			classical[r.Quantity] = [2]float64{*r.CILow, *r.CIHigh}
		}
	}
	checked := 0
	for _, r := range res.Rows {
		c, ok := classical[r.Quantity]
		if r.Method != "ppi" || r.NEffective == nil || !ok {
			continue
		}
		ratio := (*r.CIHigh - *r.CILow) / (c[1] - c[0])
		want := float64(r.NHuman) / (ratio * ratio)
		if diff := *r.NEffective - want; diff > 1e-9 || diff < -1e-9 {
			t.Errorf("%s: n_effective %v, the widths say %v", r.Quantity, *r.NEffective, want)
		}
		if (ratio > 1) != (*r.NEffective < float64(r.NHuman)) {
			t.Errorf("%s: width ratio %.3f beside effective n %.1f of %d", r.Quantity, ratio, *r.NEffective, r.NHuman)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no ppi row with an effective n")
	}
}

// labels.parquet's rows: one per claim in first-answered order, reviewer
// "human", every answer in order, the settled label or why there is none,
// and the latest answer's time.
func TestLabelsSayWhichLabelsPeopleGave(t *testing.T) {
	rows := Labels([]Answer{
		{ClaimID: "b", Label: "supported", Reviewer: "ann", ReviewedAt: "2026-01-02T10:00:00Z"},
		{ClaimID: "a", Label: "unsure", Reviewer: "ann"},
		{ClaimID: "b", Label: "supported", Reviewer: "bob", ReviewedAt: "2026-01-03T10:00:00Z"},
		{ClaimID: "c", Label: "supported", Reviewer: "ann"},
		{ClaimID: "c", Label: "unsupported", Reviewer: "bob"},
	})
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"b", "a", "c"}, []string{rows[0].ClaimID, rows[1].ClaimID, rows[2].ClaimID})
	for _, r := range rows {
		assert.Equal(t, "human", r.Reviewer)
	}
	assert.Equal(t, "supported", *rows[0].HumanLabel)
	assert.Nil(t, rows[0].Undecided)
	assert.Equal(t, []string{"ann", "bob"}, rows[0].Reviewers)
	assert.Equal(t, time.Date(2026, 1, 3, 10, 0, 0, 0, time.UTC).UnixMilli(), *rows[0].ReviewedAt, "the latest answer")
	assert.Nil(t, rows[1].HumanLabel)
	assert.Equal(t, "unsure", *rows[1].Undecided)
	assert.Nil(t, rows[1].ReviewedAt, "no answer has a time")
	assert.Nil(t, rows[2].HumanLabel)
	assert.Equal(t, "reviewers disagree (a tie)", *rows[2].Undecided)
	assert.Equal(t, []string{"supported", "unsupported"}, rows[2].Labels)
}
