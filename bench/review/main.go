// Command review checks the review estimates on labelled runs: for each
// run folder it draws a review queue, answers it from the records' gold
// labels (the gold label standing in for a reviewer), estimates every
// quantity, and prints the PPI and classical intervals beside the value
// over all gold labels, with the width ratio PPI/classical.
//
//	go run ./bench/review -n 200 -seed 1 -strategy uniform RUN_DIR...
//
// With -seeds K it repeats the draw with seeds 1..K instead and prints, per
// set and quantity, how often the PPI and the classical 95% intervals held
// the full-gold value and the mean width ratio PPI/classical.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/review"
)

func main() {
	n := flag.Int("n", 200, "gold labels used as the human sample")
	seed := flag.Uint64("seed", 1, "seed of the draw")
	strategy := flag.String("strategy", "uniform", "uniform, stratified or active")
	seeds := flag.Int("seeds", 0, "repeat with seeds 1..K and print coverage rates instead")
	flag.Parse()
	kind, err := estimate.ParseKind(*strategy)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *seeds > 0 {
		for _, dir := range flag.Args() {
			if err := repeated(dir, *n, *seeds, kind); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
				os.Exit(1)
			}
		}
		return
	}
	missed := 0
	for _, dir := range flag.Args() {
		m, err := one(dir, *n, *seed, kind)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
			os.Exit(1)
		}
		missed += m
	}
	if missed > 0 {
		fmt.Printf("%d intervals miss the full-gold value\n", missed)
		os.Exit(1)
	}
}

func one(dir string, n int, seed uint64, kind estimate.Kind) (int, error) {
	records, err := reports.ReadParquet[reports.Record](filepath.Join(dir, "records.parquet"))
	if err != nil {
		return 0, err
	}
	q, err := review.Draw(records, review.Options{N: n, Strategy: kind, Seed: seed})
	if err != nil {
		return 0, err
	}
	gold := map[string]string{}
	for _, r := range records {
		if r.GoldLabel != nil {
			gold[r.ClaimID] = *r.GoldLabel
		}
	}
	var answers []review.Answer
	for _, it := range q.Items {
		if g, ok := gold[it.ClaimID]; ok {
			answers = append(answers, review.Answer{ClaimID: it.ClaimID, Label: g, Reviewer: "gold"})
		}
	}
	res, err := review.Estimate(records, q, answers)
	if err != nil {
		return 0, err
	}
	truth := review.Truth(records)
	fmt.Printf("== %s: %d claims, %d gold labels as the human sample (%s, seed %d)\n", filepath.Base(dir), len(records), res.Labelled, kind, seed)
	fmt.Printf("%-24s %-8s %-26s %-26s %-7s %s\n", "quantity", "gold", "ppi [95% CI]", "classical [95% CI]", "width", "covered")
	missed := 0
	for i := 0; i+1 < len(res.Rows); i += 2 {
		p, c := res.Rows[i], res.Rows[i+1]
		t := truth[p.Quantity]
		iv := func(r reports.EstimateRow) string {
			if r.Value == nil {
				return "— (" + *r.Reason + ")"
			}
			return fmt.Sprintf("%.3f [%.3f, %.3f]", *r.Value, *r.CILow, *r.CIHigh)
		}
		width, cov := "—", "—"
		if p.Value != nil && c.Value != nil && *c.CIHigh > *c.CILow {
			width = fmt.Sprintf("%.2f", (*p.CIHigh-*p.CILow)/(*c.CIHigh-*c.CILow))
		}
		if p.Value != nil && !math.IsNaN(t) {
			ok := *p.CILow <= t && t <= *p.CIHigh
			cov = fmt.Sprint(ok)
			if !ok {
				missed++
			}
		}
		fmt.Printf("%-24s %-8.3f %-26s %-26s %-7s %s\n", p.Quantity, t, iv(p), iv(c), width, cov)
	}
	return missed, nil
}

// repeated draws K queues and prints each quantity's coverage rates.
func repeated(dir string, n, k int, kind estimate.Kind) error {
	records, err := reports.ReadParquet[reports.Record](filepath.Join(dir, "records.parquet"))
	if err != nil {
		return err
	}
	truth := review.Truth(records)
	gold := map[string]string{}
	for _, r := range records {
		if r.GoldLabel != nil {
			gold[r.ClaimID] = *r.GoldLabel
		}
	}
	type tally struct {
		ppi, classical, runs int
		width                float64
	}
	t := map[string]*tally{}
	for seed := 1; seed <= k; seed++ {
		q, err := review.Draw(records, review.Options{N: n, Strategy: kind, Seed: uint64(seed)})
		if err != nil {
			return err
		}
		var answers []review.Answer
		for _, it := range q.Items {
			answers = append(answers, review.Answer{ClaimID: it.ClaimID, Reviewer: "gold", Label: gold[it.ClaimID]})
		}
		res, err := review.Estimate(records, q, answers)
		if err != nil {
			return err
		}
		for i := 0; i+1 < len(res.Rows); i += 2 {
			p, c := res.Rows[i], res.Rows[i+1]
			tv := truth[p.Quantity]
			if p.Value == nil || c.Value == nil || math.IsNaN(tv) {
				continue
			}
			x := t[p.Quantity]
			if x == nil {
				x = &tally{}
				t[p.Quantity] = x
			}
			x.runs++
			if *p.CILow <= tv && tv <= *p.CIHigh {
				x.ppi++
			}
			if *c.CILow <= tv && tv <= *c.CIHigh {
				x.classical++
			}
			if *c.CIHigh > *c.CILow {
				x.width += (*p.CIHigh - *p.CILow) / (*c.CIHigh - *c.CILow)
			}
		}
	}
	fmt.Printf("== %s: %d claims, %d draws of %d (%s)\n", filepath.Base(dir), len(records), k, n, kind)
	fmt.Printf("%-24s %-6s %-10s %-10s %s\n", "quantity", "draws", "ppi cov", "class cov", "mean width ppi/classical")
	for _, name := range review.QuantityNames() {
		x := t[name]
		if x == nil {
			fmt.Printf("%-24s not estimable\n", name)
			continue
		}
		fmt.Printf("%-24s %-6d %-10.3f %-10.3f %.2f\n", name, x.runs, float64(x.ppi)/float64(x.runs), float64(x.classical)/float64(x.runs), x.width/float64(x.runs))
	}
	return nil
}
