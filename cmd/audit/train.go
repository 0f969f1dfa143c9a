package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/rules"
	"github.com/spf13/cobra"
)

const trainLong = `train retrieves the top-k passages for every labelled claim, computes the lexical
verifier's features and fits its logistic model (L2, L-BFGS, from zero: the same inputs
give byte-identical weights). The model is nested: one part decides insufficient vs the
rest from how much of the claim the evidence covers, the other supported vs unsupported
from every feature; sets with two labels only (supported, not) teach the second part
alone. --nested=false fits one three-way model instead. Give one set by its files
(--corpus, --claims, ...) or several by folder (--set DIR, repeatable: corpus.jsonl,
claims.jsonl and, when present, spans.jsonl and gold.jsonl or gold_labels.jsonl). With --balance every set
counts the same and, within a set, every label it has.

The weights file records its provenance: each set's name, inputs' sha256 and label
counts, k, the options and the training metrics. Use it with 'audit run --weights F';
'make weights' rebuilds the embedded default.

--leave-one-out writes no weights: for each set it fits on all the others and prints
how the model does on the one left out (balanced accuracy and ROC AUC of supported vs
not, macro-F1, tier-1 false accepts, ECE before and after temperature scaling).`

// trainCmd is `audit train`.
type trainCmd struct {
	e           *env
	single      lexical.Set
	dirs        []string
	out         string
	leaveOneOut bool
	p           lexical.Pipeline
	rules       string
}

func newTrainCmd(e *env) *cobra.Command {
	c := &trainCmd{e: e, p: lexical.Pipeline{MadeBy: "audit train", Retrieve: retrieve}}
	cmd := &cobra.Command{
		Use: "train (--corpus F [--spans F] --claims F [--gold F] | --set DIR ...) --out weights.json",
		Example: `  audit train --corpus corpus.jsonl --claims claims.jsonl --gold gold.jsonl --out weights.json
  audit train --set data/fever --set data/hover --out weights.json`,
		Short: "Fit the lexical verifier's weights on labelled claims",
		Long:  trainLong,
		Args:  cobra.NoArgs,
		RunE:  c.run,
	}
	f := cmd.Flags()
	f.StringVar(&c.single.Corpus, "corpus", "", "corpus documents, JSONL")
	f.StringVar(&c.single.Spans, "spans", "", "evidence spans, JSONL")
	f.StringVar(&c.single.Claims, "claims", "", "claims, JSONL")
	f.StringVar(&c.single.Gold, "gold", "", "gold labels {claim_id, label}, JSONL")
	f.StringArrayVar(&c.dirs, "set", nil, "a data set folder (repeatable)")
	f.StringVar(&c.out, "out", "", "weights file to write (required unless --leave-one-out)")
	f.StringVar(&c.p.IndexRoot, "index", "", "folder for the sets' indexes, one sub-folder per set, built or reused (default: a temporary one)")
	f.IntVar(&c.p.K, "k", 5, "passages retrieved per claim")
	f.Float64Var(&c.p.Train.L2, "l2", 0.01, "L2 penalty")
	f.IntVar(&c.p.Train.Boost.Rounds, "boost-rounds", 0, "rounds of gradient-boosted trees on top of the logistic model (0: none)")
	f.IntVar(&c.p.Train.Boost.Depth, "boost-depth", 3, "depth of the boosted trees")
	f.Float64Var(&c.p.Train.Boost.LearningRate, "boost-rate", 0.1, "learning rate of the boosted trees")
	f.BoolVar(&c.p.Train.Balance, "balance", true, "weight sets and, within each, labels equally")
	f.BoolVar(&c.p.Train.Nested, "nested", true, "decide insufficient vs the rest from the coverage features alone, then supported vs unsupported (false: one three-way model)")
	f.BoolVar(&c.leaveOneOut, "leave-one-out", false, "print the leave-one-set-out table instead of writing weights")
	f.StringVar(&c.rules, "rules", "all", "--leave-one-out: the labelling rules applied to each held-out claim's label, as audit run applies them (all, none or a list; docs/rules.md)")
	return cmd
}

// sets are the data sets the flags name, checked (exit 2 on a bad one).
func (c *trainCmd) sets(cmd *cobra.Command) ([]lexical.Set, error) {
	var sets []lexical.Set
	if c.single.Corpus != "" || c.single.Claims != "" {
		if err := requireFlags(cmd, "corpus", "claims"); err != nil {
			return nil, err
		}
		s := c.single
		s.Name = "input"
		sets = append(sets, s)
	}
	for _, d := range c.dirs {
		s, err := lexical.SetFromDir(d)
		if err != nil {
			return nil, usageErrorf("--set: %v", err)
		}
		sets = append(sets, s)
	}
	if len(sets) == 0 {
		return nil, usageErrorf("give a data set: --corpus and --claims, or --set DIR")
	}
	seen := map[string]bool{}
	for _, s := range sets {
		if seen[s.Name] {
			return nil, usageErrorf("--set: two sets named %q", s.Name)
		}
		seen[s.Name] = true
	}
	if c.leaveOneOut && len(sets) < 2 {
		return nil, usageErrorf("--leave-one-out needs at least two sets")
	}
	if !c.leaveOneOut {
		if err := requireFlags(cmd, "out"); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

func (c *trainCmd) run(cmd *cobra.Command, _ []string) error {
	if err := intRanges(intRange{"k", c.p.K, 1, maxK}, intRange{"boost-rounds", c.p.Train.Boost.Rounds, 0, 100_000}, intRange{"boost-depth", c.p.Train.Boost.Depth, 1, 16}); err != nil {
		return err
	}
	if c.p.Train.L2 < 0 || c.p.Train.Boost.LearningRate <= 0 {
		return usageErrorf("--l2 must not be negative and --boost-rate must be positive")
	}
	sets, err := c.sets(cmd)
	if err != nil {
		return err
	}
	prepared, err := c.p.Prepare(cmd.Context(), sets)
	if errors.Is(err, lexical.ErrNoLabels) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return err
	}
	if c.leaveOneOut {
		enabled, err := rules.Parse(c.rules)
		if err != nil {
			return usageErrorf("--rules: %v", err)
		}
		if len(enabled) > 0 {
			for _, s := range prepared {
				s.Decide = heldOutDecider(s, audit.RuleOptions{Options: rules.Options{Enabled: enabled, Effect: rules.EffectOverride, NumericPolicy: numeric.PolicyAuto}})
			}
		}
		rows, err := lexical.LeaveOneOut(prepared, c.p.Train)
		if err != nil {
			return err
		}
		return lexical.WriteTable(c.e.stdout, rows)
	}
	w, m, err := c.p.Fit(prepared)
	if err != nil {
		return err
	}
	b, err := w.Marshal()
	if err != nil {
		return err
	}
	if err := writeAtomic(c.out, b); err != nil {
		return err
	}
	fmt.Fprintf(c.e.stdout, "trained on %d claims: accuracy %.3f, macro-F1 %.3f, NLL %.3f → %s\n", int(m["n"]), m["accuracy"], m["macro_f1"], m["nll"], c.out)
	return nil
}

// retrieve is the pipeline's retrieval, handed to the lexical trainer.
func retrieve(ctx context.Context, ix *corpus.Index, cs []claims.Claim, k int) ([]adjudicate.Pair, error) {
	return audit.Retriever{Index: ix, K: k}.Pairs(ctx, cs, 0)
}

// writeAtomic writes a file under a temporary name and renames it into place.
func writeAtomic(path string, data []byte) error {
	f, err := reports.CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// heldOutDecider is audit run's decision for a held-out claim: the rules
// after the argmax (audit.RuleDecider). A claim the rules leave undecided
// (none: nothing retrieved is insufficient by default) keeps its argmax.
func heldOutDecider(s *lexical.Prepared, o audit.RuleOptions) func(i int, z [3]float64) int {
	decide := audit.RuleDecider(o)
	return func(i int, z [3]float64) int {
		if k := decide(s.Claims[i], s.Pairs[i], s.Best[i], z); k >= 0 {
			return k
		}
		return int(metrics.Argmax(metrics.Softmax(z, 1)))
	}
}
