package review

import (
	"path/filepath"
	"time"

	"github.com/claimaudit/claimaudit/reports"
)

// LabelsFile is the queue folder's table of the labels people gave
// (reports.HumanLabelRow), rewritten by every import.
const LabelsFile = "labels.parquet"

// Labels are the rows of labels.parquet: one per claim answered, in the
// order claims were first answered, with every reviewer's answer and the
// label they settle on (HumanLabel).
func Labels(answers []Answer) []reports.HumanLabelRow {
	byClaim := map[string][]Answer{}
	var order []string
	for _, a := range answers {
		if _, ok := byClaim[a.ClaimID]; !ok {
			order = append(order, a.ClaimID)
		}
		byClaim[a.ClaimID] = append(byClaim[a.ClaimID], a)
	}
	rows := make([]reports.HumanLabelRow, 0, len(order))
	for _, id := range order {
		as := byClaim[id]
		r := reports.HumanLabelRow{ClaimID: id, Reviewer: reports.ReviewerHuman}
		for _, a := range as {
			r.Reviewers, r.Labels = append(r.Reviewers, a.Reviewer), append(r.Labels, a.Label)
			if t, err := time.Parse(time.RFC3339, a.ReviewedAt); err == nil {
				if ms := t.UnixMilli(); r.ReviewedAt == nil || ms > *r.ReviewedAt {
					r.ReviewedAt = &ms
				}
			}
		}
		if l, why := HumanLabel(as); why != "" {
			r.Undecided = &why
		} else {
			s := l.String()
			r.HumanLabel = &s
		}
		rows = append(rows, r)
	}
	return rows
}

// WriteLabels writes the queue folder's labels.parquet from every answer
// recorded, atomically.
func WriteLabels(dir, runID string, answers []Answer) error {
	w, err := reports.NewParquetWriter[reports.HumanLabelRow](filepath.Join(dir, LabelsFile), reports.Meta{RunID: runID})
	if err != nil {
		return err
	}
	if err := w.Write(Labels(answers)...); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
