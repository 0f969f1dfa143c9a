package review

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
)

// Answer is one reviewer's answer about one claim: a line of an answers
// file and of reviews.jsonl. Label is a label's text form or "unsure".
type Answer struct {
	ClaimID    string `json:"claim_id"`
	Label      string `json:"label"`
	Reviewer   string `json:"reviewer"`
	ReviewedAt string `json:"reviewed_at,omitempty"` // RFC 3339
	Note       string `json:"note,omitempty"`
}

// Errors of an answers file, wrapped in positioned jsonl.ParseErrors.
var (
	ErrUnknownClaim = errors.New("claim is not in the review queue")
	ErrBadLabel     = errors.New("not a label")
	ErrDuplicate    = errors.New("duplicate answer")
)

// Answers checks answers against a queue as they are read: every defect
// of every file is collected, positioned (file:line:col field).
type Answers struct {
	queue map[string]bool
	seen  map[[2]string]seenAnswer // (claim, reviewer) → the first answer
	Errs  jsonl.ErrorList
	List  []Answer
	// Repeated counts answers identical (label and note) to one already
	// recorded for the claim by the same reviewer: skipped, so importing
	// the same file twice changes nothing.
	Repeated int
}

// seenAnswer is where a (claim, reviewer) was first answered, and what.
type seenAnswer struct {
	where       string
	label, note string
}

// NewAnswers starts an empty set of answers about q's claims.
func NewAnswers(q *Queue, maxErrors int) *Answers {
	a := &Answers{queue: map[string]bool{}, seen: map[[2]string]seenAnswer{}}
	a.Errs.Limit = maxErrors
	for _, it := range q.Items {
		a.queue[it.ClaimID] = true
	}
	return a
}

// add checks one answer; field columns come from col (0 when unknown).
func (a *Answers) add(file string, line int, col func(string) int, an Answer, now time.Time) {
	ok := true
	fail := func(field string, err error) {
		a.Errs.Add(file, line, col(field), field, err)
		ok = false
	}
	if !a.queue[an.ClaimID] {
		fail("claim_id", jsonl.Errorf(ErrUnknownClaim, "claim %q is not in the review queue", an.ClaimID))
	}
	l, unsure, valid := labelOK(an.Label)
	switch {
	case !valid:
		fail("label", jsonl.Errorf(ErrBadLabel, "%q is not supported, unsupported, insufficient or unsure", an.Label))
	case unsure:
		an.Label = Unsure
	default:
		an.Label = l.String()
	}
	an.Reviewer = strings.TrimSpace(an.Reviewer)
	if an.Reviewer == "" {
		fail("reviewer", jsonl.Errorf(jsonl.ErrMissingField, "who answered is required"))
	}
	if an.ReviewedAt == "" {
		an.ReviewedAt = now.UTC().Format(time.RFC3339)
	} else if _, err := time.Parse(time.RFC3339, an.ReviewedAt); err != nil {
		fail("reviewed_at", jsonl.Errorf(jsonl.ErrWrongType, "%q is not an RFC 3339 time", an.ReviewedAt))
	}
	key := [2]string{an.ClaimID, an.Reviewer}
	if prev, dup := a.seen[key]; dup && an.Reviewer != "" {
		if ok && prev.label == an.Label && prev.note == an.Note {
			a.Repeated++ // the same answer again: nothing to add
			return
		}
		fail("claim_id", jsonl.Errorf(ErrDuplicate, "reviewer %q already answered claim %q at %s (%s), differently", an.Reviewer, an.ClaimID, prev.where, prev.label))
	}
	if ok {
		a.seen[key] = seenAnswer{where: fmt.Sprintf("%s:%d", file, line), label: an.Label, note: an.Note}
		a.List = append(a.List, an)
	}
}

// ReadFile reads an answers file: JSON Lines, or CSV (by the .csv
// extension) with a header naming claim_id, label and reviewer and
// optionally reviewed_at and note (the columns of queue.csv). Answers
// without reviewed_at get now. I/O failures are returned; defects go to
// a.Errs.
func (a *Answers) ReadFile(ctx context.Context, path string, now time.Time) error {
	f, err := userfile.Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		return a.readCSV(f, path, now)
	}
	_, err = jsonl.Each(ctx, f, path, 0, &a.Errs, func(r jsonl.Record) {
		r.AllowOnly("claim_id", "label", "reviewer", "reviewed_at", "note")
		var an Answer
		var ok1, ok2, ok3 bool
		an.ClaimID, ok1 = r.Str("claim_id", true, true)
		an.Label, ok2 = r.Str("label", true, true)
		an.Reviewer, ok3 = r.Str("reviewer", true, true)
		an.ReviewedAt, _ = r.Str("reviewed_at", false, false)
		an.Note, _ = r.Str("note", false, false)
		if ok1 && ok2 && ok3 && r.Clean() {
			a.add(path, r.Line, r.Col, an, now)
		}
	})
	return err
}

// maxCSVLine bounds one line of a CSV answers file.
const maxCSVLine = 16 << 20

func (a *Answers) readCSV(f io.Reader, path string, now time.Time) error {
	// A CSV answer line is short; an endless or binary stream is refused
	// at its first line or its first overlong one, not read whole.
	c := csv.NewReader(jsonl.TextGuard(f, maxCSVLine))
	c.FieldsPerRecord = -1
	header, err := c.Read()
	if err != nil {
		a.Errs.Add(path, 1, 0, "", fmt.Errorf("no CSV header: %w", err))
		return nil
	}
	colOf := map[string]int{}
	for i, h := range header {
		colOf[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, need := range []string{"claim_id", "label", "reviewer"} {
		if _, ok := colOf[need]; !ok {
			a.Errs.Add(path, 1, 0, need, jsonl.Errorf(jsonl.ErrMissingField, "the header has no %s column", need))
		}
	}
	if a.Errs.Total > 0 {
		return nil
	}
	for {
		rec, err := c.Read()
		if err == io.EOF {
			return nil
		}
		line, _ := c.FieldPos(0)
		var pe *csv.ParseError
		if err != nil && !errors.As(err, &pe) {
			a.Errs.Add(path, line, 0, "", err) // a read failure or a guard's: no further reading
			return nil
		}
		if err != nil {
			a.Errs.Add(path, line, 0, "", err)
			continue
		}
		get := func(name string) string {
			if i, ok := colOf[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		if get("label") == "" {
			continue // a queue row nobody answered yet
		}
		col := func(name string) int {
			if i, ok := colOf[name]; ok && i < len(rec) {
				_, c := c.FieldPos(i)
				return c
			}
			return 0
		}
		a.add(path, line, col, Answer{ClaimID: reports.UnneutralizeFormula(get("claim_id")), Label: get("label"), Reviewer: get("reviewer"),
			ReviewedAt: get("reviewed_at"), Note: get("note")}, now)
	}
}

// HumanLabel is the label a claim's reviews settle on: the most common
// label among its reviewers' (unsure answers left out), or none, with why.
func HumanLabel(answers []Answer) (label.Label, string) {
	count := map[string]int{}
	for _, a := range answers {
		if a.Label != Unsure {
			count[a.Label]++
		}
	}
	if len(count) == 0 {
		return label.None, "unsure"
	}
	best, tie := "", false
	for _, l := range label.All {
		switch c := count[l.String()]; {
		case best == "" && c > 0, c > count[best]:
			best, tie = l.String(), false
		case c > 0 && c == count[best]:
			tie = true
		}
	}
	if tie {
		return label.None, "reviewers disagree (a tie)"
	}
	l, _ := label.Parse(best)
	return l, ""
}
