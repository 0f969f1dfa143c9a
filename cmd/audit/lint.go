package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newLintCmd(e *env) *cobra.Command {
	var in, factsPath, out, style, unverifiable, mismatch, outdated string
	var opts claims.LintOptions
	var soft claims.SoftenOptions
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lint --input outputs.jsonl --facts facts.jsonl [--soften STYLE --out softened.jsonl]",
		Short: "Check the numbers in generated copy against known facts; flag or soften the rest",
		Long: `lint finds every numeric claim in model outputs ({id, text} JSONL) — percentages, counts,
times, multipliers, money, scores, ranges, averages; not versions — line by line, and
checks each against a facts file (JSONL, see docs/format/facts.md):

  outdated      the line names its own source ("(source: X)", "according to X",
                "[cite:X]"): taken as verified, reported as info to re-check
  unverifiable  no fact matches it (or the nearest one is about another year,
                unit or entity): a warning
  verified      a matching fact satisfies it (within 5%, or inside the bound it
                states: "more than 100", "up to 5%", "nearly 40%", "between X and Y")
  mismatch      a matching fact contradicts it: an error

A fact matches by seed-style similarity (Jaccard of the line and the fact's
description × 0.5, +0.3 same unit, +0.2 value agrees; at least 0.3), and must agree
on the year and the entity when both name one.

Diagnostics print as file:line: severity: message, where line is the output's line
in the input file and the message names the line within the text. Hedged claims
("about", "approximately", "nearly", "up to") and contextual ones ("for example",
"sample") are skipped unless --include-hedged / --include-contextual.

--soften STYLE rewrites the unverifiable claims and writes the outputs, softened, to
--out (conservative: "approximately 94%", "over 20 rules"; moderate: "around 94%",
"25+ rules"; aggressive: "up to 94%", "dozens of rules"; trust scores: "trust scores
typically around / can reach N%", "high trust scores"). Verified and outdated claims
are never softened; nor is a claim whose check reaches --confidence-threshold; a
mismatch is softened only with --soften-mismatches (otherwise it stays an error).
A softened claim is reported as info.

Exit status: 0 no errors, 1 an error-level diagnostic remains, 2 usage or input error.`,
		Example: `  audit lint --input outputs.jsonl --facts facts.jsonl
  audit lint --input outputs.jsonl --facts facts.jsonl --soften moderate --out softened.jsonl
  audit lint --input page.jsonl --facts facts.jsonl --unverifiable-severity error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "input", "facts"); err != nil {
				return err
			}
			var err error
			for _, s := range []struct {
				flag, v string
				to      *claims.Severity
			}{{"unverifiable-severity", unverifiable, &opts.UnverifiableSeverity}, {"mismatch-severity", mismatch, &opts.MismatchSeverity}, {"outdated-severity", outdated, &opts.OutdatedSeverity}} {
				if *s.to, err = claims.ParseSeverity(s.v); err != nil {
					return usageErrorf("--%s: %v", s.flag, err)
				}
			}
			if style != "" {
				if soft.Style, err = claims.ParseSoftenStyle(style); err != nil {
					return usageErrorf("--soften: %v", err)
				}
				if out == "" {
					return usageErrorf("--soften needs --out, the file to write the softened outputs to")
				}
			} else if out != "" {
				return usageErrorf("--out is for --soften")
			}
			if soft.ConfidenceThreshold <= 0 || soft.ConfidenceThreshold > 1 {
				return usageErrorf("--confidence-threshold must be in (0, 1]")
			}
			facts, err := claims.ReadFactsFile(cmd.Context(), factsPath)
			if err != nil {
				return err
			}
			f, err := os.Open(in)
			if err != nil {
				return fmt.Errorf("open input: %w", err)
			}
			defer f.Close()
			var softened *reports.AtomicFile
			var sw *bufio.Writer
			if soft.Style != "" {
				if softened, err = reports.CreateAtomic(out); err != nil {
					return err
				}
				defer softened.Abort()
				sw = bufio.NewWriter(softened)
			}
			w := bufio.NewWriter(e.stdout)
			defer w.Flush()
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			counts := map[string]int{}
			errorsLeft := 0
			err = claims.ReadOutputsAt(cmd.Context(), f, in, func(line int, o claims.Output) error {
				findings := claims.Lint(o.Text, facts, opts)
				var ss []claims.Softening
				if soft.Style != "" {
					var text string
					text, ss = claims.Soften(o.Text, findings, soft)
					o.Text = text
					b, err := json.Marshal(o)
					if err != nil {
						return err
					}
					if _, err := sw.Write(append(b, '\n')); err != nil {
						return fmt.Errorf("write softened outputs: %w", err)
					}
				}
				for i, fd := range findings {
					counts[fd.Check.Status]++
					sev, msg := fd.Severity, fd.Message
					replacement := ""
					if ss != nil && ss[i].Replacement != "" {
						counts["softened"]++
						replacement = ss[i].Replacement
						sev = claims.SeverityInfo
						msg = fmt.Sprintf("Softened claim: %q → %q at line %d (was %s)", fd.Claim.Text, replacement, fd.Claim.Line, fd.Check.Status)
					}
					if sev == claims.SeverityError {
						errorsLeft++
					}
					if asJSON {
						if err := enc.Encode(lintRecord(in, line, o.ID, fd, sev, replacement)); err != nil {
							return err
						}
						continue
					}
					if sev != "" {
						fmt.Fprintf(w, "%s:%d: %s: %s\n", in, line, sev, msg)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if !asJSON {
				n := counts[claims.NumericVerified] + counts[claims.NumericOutdated] + counts[claims.NumericUnverifiable] + counts[claims.NumericMismatch]
				fmt.Fprintf(w, "%d numeric claims: %d verified, %d outdated, %d unverifiable, %d mismatch", n,
					counts[claims.NumericVerified], counts[claims.NumericOutdated], counts[claims.NumericUnverifiable], counts[claims.NumericMismatch])
				if soft.Style != "" {
					fmt.Fprintf(w, "; %d softened (%s) in %s", counts["softened"], soft.Style, out)
				}
				fmt.Fprintln(w)
			}
			if softened != nil {
				if err := sw.Flush(); err != nil {
					return fmt.Errorf("write softened outputs: %w", err)
				}
				if err := softened.Commit(); err != nil {
					return fmt.Errorf("write softened outputs: %w", err)
				}
			}
			if errorsLeft > 0 {
				w.Flush()
				return &exitError{code: exitGate, err: errors.New("lint errors"), quiet: true}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&in, "input", "", "model outputs, JSONL {id, text, query?} (required)")
	fl.StringVar(&factsPath, "facts", "", "known facts, JSONL {id, description, value, unit?, year?, date?} (required)")
	fl.StringVar(&style, "soften", "", "soften unverifiable claims: conservative, moderate or aggressive")
	fl.StringVar(&out, "out", "", "with --soften: where to write the softened outputs (JSONL)")
	fl.Float64Var(&soft.ConfidenceThreshold, "confidence-threshold", 0.5, "with --soften: leave claims whose check is at least this confident")
	fl.BoolVar(&soft.SoftenMismatches, "soften-mismatches", false, "with --soften: make mismatches soft-eligible (they stay errors otherwise)")
	fl.StringVar(&unverifiable, "unverifiable-severity", "warning", "severity of unverifiable claims: error, warning, info or off")
	fl.StringVar(&mismatch, "mismatch-severity", "error", "severity of mismatched claims: error, warning, info or off")
	fl.StringVar(&outdated, "outdated-severity", "info", "severity of claims that name their own source: error, warning, info or off")
	fl.BoolVar(&opts.IncludeHedged, "include-hedged", false, "also check hedged claims (\"about 40%\", \"up to 3x\")")
	fl.BoolVar(&opts.IncludeContextual, "include-contextual", false, "also check contextual claims (\"for example\", \"sample\")")
	fl.BoolVar(&asJSON, "json", false, "print one JSON object per claim instead of diagnostics")
	return cmd
}

// lintRecord is one claim in --json output.
func lintRecord(file string, line int, id string, f claims.Finding, sev claims.Severity, softened string) map[string]any {
	r := map[string]any{
		"file": file, "line": line, "output_id": id, "text_line": f.Claim.Line, "claim": f.Claim.Text,
		"type": claims.ClaimType(f.Claim.Text, f.Claim.Unit, f.Claim.Pattern), "status": f.Check.Status,
		"severity": nilIfEmpty(string(sev)), "reason": f.Check.Reason, "confidence": f.Check.Score,
		"fact": f.Check.Fact, "softened": nilIfEmpty(softened),
	}
	if f.Check.Disagreement != "" {
		r["disagreement"] = f.Check.Disagreement
	}
	return r
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
