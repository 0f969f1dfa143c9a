package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/review"
	"github.com/spf13/cobra"
)

const reviewLong = `review draws a sample of a run's claims for people to label, with known inclusion
probabilities, so that 'audit estimate' can turn their labels and the verifier's predictions
on every claim into valid estimates about all the claims (docs/review.md).

  audit review --run DIR --n 300 --strategy uniform|stratified|active --seed S --out QUEUE

writes QUEUE/queue.jsonl (position, claim_id, inclusion_probability, stratum), design.json
(how it was drawn), queue.csv (the same with the claim and its deciding passage, and empty
label/reviewer/note columns for spreadsheets) and review.html (works offline in a browser:
each claim with its passages, the deciding one highlighted; supported / unsupported /
insufficient / unsure and a note; saves a JSONL file of answers).

  uniform     simple random sample of n claims
  stratified  simple random samples within strata (--stratify-by), in proportion to their
              size, at least two per stratum
  active      Poisson sampling, likelier where the verifier is uncertain (half uniform, so
              no claim is unlikely); the sample size is n on average

  audit review --import answers.jsonl [--import more.csv] --queue QUEUE

checks answers ({claim_id, label, reviewer, reviewed_at?, note?} as JSON Lines, or CSV with
those columns): a claim not in the queue, a label that is not one of the four, a missing
reviewer or the same reviewer answering a claim twice is an error naming file, line and
field (exit 2, nothing recorded). Valid answers are added to QUEUE/reviews.jsonl with their
reviewer and time; several reviewers per claim are allowed, and their agreement
(Krippendorff's alpha, Cohen's kappa per pair) is printed.`

type reviewCmd struct {
	e                    *env
	runDir, out, queue   string
	strategy, stratifyBy string
	n                    int
	seed                 uint64
	imports              []string
	force                bool
}

func newReviewCmd(e *env) *cobra.Command {
	c := &reviewCmd{e: e}
	cmd := &cobra.Command{
		Use: "review --run DIR --n N --strategy S --out QUEUE | --import F --queue QUEUE",
		Example: `  audit review --run demo-out --n 80 --strategy stratified --out q
  audit review --import answers-ann.jsonl --queue q
  audit review --import q/queue.csv --queue q`,
		Short: "Draw claims for human review (review.html, CSV) and import the answers",
		Long:  reviewLong,
		Args:  cobra.NoArgs,
		RunE:  c.run,
	}
	f := cmd.Flags()
	f.StringVar(&c.runDir, "run", "", "the run folder (its records.parquet) to draw from")
	f.IntVar(&c.n, "n", 300, "claims to review (the mean for --strategy active)")
	f.StringVar(&c.strategy, "strategy", "uniform", "sampling design: uniform, stratified or active")
	f.StringVar(&c.stratifyBy, "stratify-by", "predicted_label", "strata of --strategy stratified: predicted_label, claim_type or predicted_label,claim_type")
	f.Uint64Var(&c.seed, "seed", 1, "seed of the draw")
	f.StringVar(&c.out, "out", "", "queue folder to write")
	f.BoolVar(&c.force, "force", false, "replace a queue already in --out")
	f.StringArrayVar(&c.imports, "import", nil, "answers file to check and add to --queue's reviews.jsonl (JSONL or .csv; repeatable)")
	f.StringVar(&c.queue, "queue", "", "queue folder the --import answers are about")
	return cmd
}

func (c *reviewCmd) run(cmd *cobra.Command, _ []string) error {
	if len(c.imports) > 0 {
		if c.queue == "" {
			return usageErrorf("review --import: --queue QUEUE is required")
		}
		return c.importAnswers(cmd)
	}
	if c.runDir == "" || c.out == "" {
		return usageErrorf("review: --run and --out are required (or --import with --queue)")
	}
	if err := notAnOutputFolder(c.out); err != nil {
		return err
	}
	kind, err := estimate.ParseKind(c.strategy)
	if err != nil {
		return usageErrorf("--strategy: %v", err)
	}
	records, err := readRunRecords(c.runDir)
	if err != nil {
		return err
	}
	q, err := review.Draw(records, review.Options{N: c.n, Strategy: kind, Seed: c.seed, StratifyBy: c.stratifyBy})
	if err != nil {
		return usageErrorf("review: %v", err)
	}
	if err := review.Write(c.out, q, records, c.force); err != nil {
		if errors.Is(err, review.ErrQueueExists) {
			return usageErrorf("%v", err)
		}
		return err
	}
	fmt.Fprintf(c.e.stdout, "%d of %d claims queued for review (%s sampling, seed %d) in %s: open %s in a browser, or fill in %s\n",
		len(q.Items), len(records), kind, c.seed, c.out, filepath.Join(c.out, review.HTMLFile), filepath.Join(c.out, review.CSVFile))
	return nil
}

// readRunRecords reads DIR/records.parquet (or the file itself).
func readRunRecords(dir string) ([]reports.Record, error) {
	path := dir
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		path = filepath.Join(dir, "records.parquet")
	}
	if err := checkReadable(filepath.Dir(path)); err != nil {
		return nil, err
	}
	rs, err := reports.ReadParquet[reports.Record](path)
	if err != nil {
		return nil, &exitError{code: exitInput, err: err}
	}
	if len(rs) == 0 {
		return nil, usageErrorf("%s: no records", path)
	}
	return rs, nil
}

// loadAnswers reads and checks answers files against q; existing are
// answers already recorded (duplicates against them are errors too).
func loadAnswers(cmd *cobra.Command, e *env, q *review.Queue, existing string, files []string) (*review.Answers, int, error) {
	a := review.NewAnswers(q, e.maxErrors)
	before := 0
	if existing != "" {
		if _, err := os.Stat(existing); err == nil {
			if err := a.ReadFile(cmd.Context(), existing, time.Now()); err != nil {
				return nil, 0, err
			}
			before = len(a.List)
		}
	}
	now := time.Now()
	for _, f := range files {
		if err := a.ReadFile(cmd.Context(), f, now); err != nil {
			return nil, 0, &exitError{code: exitInput, err: err}
		}
	}
	if err := a.Errs.Err(); err != nil {
		return nil, 0, err
	}
	return a, before, nil
}

func (c *reviewCmd) importAnswers(cmd *cobra.Command) error {
	q, err := review.Read(c.queue)
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	path := filepath.Join(c.queue, review.ReviewsFile)
	a, before, err := loadAnswers(cmd, c.e, q, path, c.imports)
	if err != nil {
		return err
	}
	f, err := reports.CreateAtomic(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, an := range a.List {
		if err := enc.Encode(an); err != nil {
			f.Abort()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	if err := review.WriteLabels(c.queue, q.Plan.RunID, a.List); err != nil {
		return err
	}
	reviewers := map[string]bool{}
	claims := map[string]bool{}
	for _, an := range a.List {
		reviewers[an.Reviewer], claims[an.ClaimID] = true, true
	}
	repeated := ""
	if a.Repeated > 0 {
		repeated = fmt.Sprintf("; %d identical to answers already recorded, skipped", a.Repeated)
	}
	fmt.Fprintf(c.e.stdout, "%d answers added to %s (%d in all: %d of %d queued claims, %d reviewers%s)\n",
		len(a.List)-before, path, len(a.List), len(claims), len(q.Items), len(reviewers), repeated)
	for _, line := range review.Agreement(a.List) {
		fmt.Fprintln(c.e.stdout, line)
	}
	return nil
}
