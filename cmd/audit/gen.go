package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/claimaudit/claimaudit/label"

	"github.com/claimaudit/claimaudit/benchdata"
	"github.com/spf13/cobra"
)

func newGenCmd(e *env) *cobra.Command {
	var dir, mix string
	var opts benchdata.Options
	cmd := &cobra.Command{
		Use: "gen --out DIR --claims N [--docs M] [--seed S]",
		Example: `  audit gen --out data --claims 600 --docs 300 --seed 2026
  audit gen --out big --claims 100000 --docs 20000`,
		Short: "Generate a labelled benchmark set (corpus, spans, claims, gold labels, model outputs)",
		Long: `gen writes a synthetic but realistic labelled set into DIR: a world of companies,
cities, lakes, universities and hospitals whose facts (counts, money, percentages,
measures, years, names, definitions, policies; some per year) are rendered into
documents by varied templates, with near-duplicate entities as distractors and spans on
some facts; and claims labelled by construction:

  supported     paraphrases, abbreviated (5.7K), rounded with "about", ranges, "12 percent"
  unsupported   changed values, swapped entities, wrong years, negations, antonyms
  insufficient  unknown entities, unstated attributes, a missing year where the corpus
                has several, hedged ("It may be that ...")

Files: corpus.jsonl, spans.jsonl, claims.jsonl, gold.jsonl, outputs.jsonl (the claims
as model-output texts, for 'audit extract'), manifest.json. The same seed gives
byte-identical files; claims are streamed, so a million of them need little memory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "out"); err != nil {
				return err
			}
			if err := notAnOutputFolder(dir); err != nil {
				return err
			}
			if err := intRanges(intRange{"claims", opts.Claims, 1, 10_000_000}, intRange{"docs", opts.Docs, 0, 10_000_000}, intRange{"rule-cases", opts.RuleCases, 0, 10_000_000}); err != nil {
				return err
			}
			if opts.Docs < 0 {
				return usageErrorf("--docs must not be negative")
			}
			if mix != "" {
				parts := strings.Split(mix, ",")
				if len(parts) != 3 {
					return usageErrorf("--mix wants three numbers: supported,unsupported,insufficient")
				}
				for i, p := range parts {
					v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
					if err != nil || !(v >= 0) || math.IsInf(v, 0) {
						return usageErrorf("--mix: %q is not a non-negative number", p)
					}
					opts.Mix[i] = v
				}
				if opts.Mix[0]+opts.Mix[1]+opts.Mix[2] <= 0 {
					return usageErrorf("--mix %s: the shares add up to 0", mix)
				}
			}
			m, err := benchdata.Generate(cmd.Context(), dir, opts)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %d documents, %d spans, %d claims (%d supported, %d unsupported, %d insufficient), %d outputs to %s\n",
				m.Docs, m.Spans, m.Claims, m.Labels[string(label.Supported)], m.Labels[string(label.Unsupported)], m.Labels[string(label.Insufficient)], m.Outputs, dir)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "out", "", "folder to write (required)")
	f.IntVar(&opts.Claims, "claims", 0, "claims to generate (required)")
	f.IntVar(&opts.Docs, "docs", 0, "documents (default: half the claims, at least 50)")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed")
	f.IntVar(&opts.RuleCases, "rule-cases", 0, "also this many claims for the labelling rules (conflicting sources with and without an authority, no evidence, a location the evidence lacks, stale evidence), ids r_…, after the others; 0: none")
	f.StringVar(&mix, "mix", "", "label shares supported,unsupported,insufficient (default 0.4,0.3,0.3)")
	return cmd
}
