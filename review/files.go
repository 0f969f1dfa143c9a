package review

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
)

// The files of a queue folder.
const (
	QueueFile   = "queue.jsonl"
	PlanFile    = "design.json"
	CSVFile     = "queue.csv"
	HTMLFile    = "review.html"
	ReviewsFile = "reviews.jsonl"
)

// ErrQueueExists marks a queue folder that already holds a queue.
var ErrQueueExists = errors.New("already holds a review queue")

// Write writes the queue folder: queue.jsonl, design.json, queue.csv and
// review.html, each atomically. A folder that holds a queue is refused
// unless force (answers already given would no longer match it).
func Write(dir string, q *Queue, records []reports.Record, force bool) error {
	if !force {
		if _, err := os.Stat(filepath.Join(dir, QueueFile)); err == nil {
			return fmt.Errorf("%s %w (--force replaces it)", dir, ErrQueueExists)
		}
	}
	if err := os.MkdirAll(dir, outdir.DirMode); err != nil {
		return err
	}
	byID := make(map[string]*reports.Record, len(records))
	for i := range records {
		byID[records[i].ClaimID] = &records[i]
	}
	page, err := Page(q, byID)
	if err != nil {
		return err
	}
	plan, err := json.MarshalIndent(q.Plan, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(*bufio.Writer) error
	}{
		{QueueFile, func(w *bufio.Writer) error {
			enc := json.NewEncoder(w)
			for _, it := range q.Items {
				if err := enc.Encode(it); err != nil {
					return err
				}
			}
			return nil
		}},
		{CSVFile, func(w *bufio.Writer) error { return writeCSV(w, q, byID) }},
		{HTMLFile, func(w *bufio.Writer) error { _, err := w.Write(page); return err }},
		{PlanFile, func(w *bufio.Writer) error { _, err := w.Write(append(plan, '\n')); return err }},
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, fn func(*bufio.Writer) error) error {
	f, err := reports.CreateAtomic(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := errors.Join(fn(w), w.Flush()); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// writeCSV writes the queue for spreadsheets, with empty label, reviewer
// and note columns to fill in (the file `audit review --import` reads).
func writeCSV(w *bufio.Writer, q *Queue, byID map[string]*reports.Record) error {
	c := reports.NewCSVWriter(w, 0, 2) // position, inclusion_probability
	if err := c.WriteHeader([]string{"position", "claim_id", "inclusion_probability", "stratum", "claim", "deciding_passage", "label", "reviewer", "note"}); err != nil {
		return err
	}
	for _, it := range q.Items {
		var text, passage string
		if r := byID[it.ClaimID]; r != nil {
			text = r.Text
			if ps := passages(r); len(ps) > 0 {
				passage = ps[0].Text
				for _, p := range ps {
					if p.Deciding {
						passage = p.Text
					}
				}
			}
		}
		if err := c.Write([]string{strconv.Itoa(it.Position), it.ClaimID, strconv.FormatFloat(it.InclusionProbability, 'g', -1, 64),
			it.Stratum, text, passage, "", "", ""}); err != nil {
			return err
		}
	}
	return c.Flush()
}

// Read reads a queue folder's design.json and queue.jsonl.
func Read(dir string) (*Queue, error) {
	q := &Queue{}
	b, err := userfile.ReadFile(filepath.Join(dir, PlanFile), userfile.MaxSmall)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a review queue (no %s): make one with audit review --run DIR --out %s", dir, PlanFile, dir)
		}
		return nil, err
	}
	if err := json.Unmarshal(b, &q.Plan); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, PlanFile), err)
	}
	if _, err := estimate.ParseKind(string(q.Plan.Strategy)); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, PlanFile), err)
	}
	path := filepath.Join(dir, QueueFile)
	f, err := userfile.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	seen := map[string]bool{}
	for sc.Scan() {
		line++
		var it Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if it.ClaimID == "" || seen[it.ClaimID] || !(it.InclusionProbability > 0 && it.InclusionProbability <= 1) {
			return nil, fmt.Errorf("%s:%d: claim %q: empty, repeated, or inclusion probability %v outside (0, 1]", path, line, it.ClaimID, it.InclusionProbability)
		}
		seen[it.ClaimID] = true
		q.Items = append(q.Items, it)
	}
	return q, sc.Err()
}
