package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/review"
	"github.com/rogpeppe/go-internal/testscript"
)

// goldAnswers RUN QUEUE OUT REVIEWER [FLIP]: answers to every queued claim
// from the run's gold labels, as REVIEWER; with FLIP=k every k-th answer
// is changed to another label (a second reviewer who disagrees sometimes).
func goldAnswers(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 || len(args) > 5 {
		ts.Fatalf("usage: goldAnswers RUN QUEUE OUT REVIEWER [FLIP]")
	}
	flip := 0
	if len(args) == 5 {
		var err error
		if flip, err = strconv.Atoi(args[4]); err != nil {
			ts.Fatalf("FLIP: %v", err)
		}
	}
	recs, err := reports.ReadParquet[reports.Record](filepath.Join(ts.MkAbs(args[0]), "records.parquet"))
	ts.Check(err)
	q, err := review.Read(ts.MkAbs(args[1]))
	ts.Check(err)
	gold := map[string]string{}
	for _, r := range recs {
		if r.GoldLabel != nil {
			gold[r.ClaimID] = *r.GoldLabel
		}
	}
	other := map[string]string{"supported": "unsupported", "unsupported": "insufficient", "insufficient": "supported"}
	var b strings.Builder
	for i, it := range q.Items {
		l := gold[it.ClaimID]
		if flip > 0 && i%flip == flip-1 {
			l = other[l]
		}
		line, _ := json.Marshal(review.Answer{ClaimID: it.ClaimID, Label: l, Reviewer: args[3], ReviewedAt: "2026-01-02T03:04:05Z"})
		b.Write(append(line, '\n'))
	}
	ts.Check(writeTestFile(ts.MkAbs(args[2]), b.String()))
}

func writeTestFile(path, s string) error {
	f, err := reports.CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(s)); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
