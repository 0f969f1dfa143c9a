package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/spf13/cobra"
)

func newExtractCmd(e *env) *cobra.Command {
	var in, out string
	var opts extract.ExtractOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "extract --input outputs.jsonl --out claims.jsonl",
		Short: "Extract atomic claims from model outputs (rule-based, deterministic)",
		Long: `extract reads model outputs ({id, text, query?} JSONL) and writes their atomic claims
as claims JSONL: sentences are segmented (decimals, list markers and abbreviations
such as "Dr.", "No.", "e.g." survive; "U.S." ends a sentence when a sentence opener
such as "It" or "Is" follows), non-factual sentences dropped (questions, imperatives
and second-person advice such as "You should watch it.", opinions such as "I think",
"I recommend" or "is a must-see", acknowledgements, meta-statements about the
response), compound sentences split into atomic claims only between two clauses
("Paris is in France and Berlin is in Germany" gives two; "blocks and rebounds" and
"designs and builds" stay whole), duplicates removed.

A claim that opens with a pronoun ("It grossed $467 million") takes the subject of
the sentence before when that is unambiguous ("The Matrix grossed…"; "he" and "she"
only for a name); otherwise it is kept and marked "contextual: unresolved pronoun"
in notes. Each claim gets a stable id (output id + hash of its text), its type
(numeric, temporal, definitional, policy, fact), importance (critical, material,
minor), [cite:X] anchors as cite, and for numeric claims the quantity, unit and
normalised value.

Hedged claims ("may", "about 40%") are skipped unless they carry a [cite:X] anchor
(the number can then be checked against the cited evidence) or --include-hedged is
given; contextual ones ("for example") are skipped unless --include-contextual.
Kept hedged and contextual claims are marked in notes.

The output file is written only when every input line is valid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "input", "out"); err != nil {
				return err
			}
			stats, err := extract.ExtractFile(cmd.Context(), in, out, opts)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(e.stdout).Encode(stats)
			}
			fmt.Fprintf(e.stdout, "%d outputs, %d sentences → %d claims in %s\n", stats.Outputs, stats.Sentences, stats.Claims, out)
			reasons := make([]string, 0, len(stats.Skipped))
			for r := range stats.Skipped {
				reasons = append(reasons, r)
			}
			sort.Strings(reasons)
			for _, r := range reasons {
				fmt.Fprintf(e.stdout, "  skipped %-16s %d\n", r, stats.Skipped[r])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&in, "input", "", "model outputs, JSONL {id, text, query?} (required)")
	f.StringVar(&out, "out", "", "claims file to write, JSONL (required)")
	f.BoolVar(&opts.IncludeHedged, "include-hedged", false, "keep hedged claims (marked \"hedged: <word>\" in notes)")
	f.BoolVar(&opts.IncludeContextual, "include-contextual", false, "keep contextual claims (marked \"contextual: <phrase>\" in notes)")
	f.BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}
