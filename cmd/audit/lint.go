package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/claimaudit/claimaudit/extract"
	"github.com/claimaudit/claimaudit/lint"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const lintLong = `lint finds every numeric claim in model outputs ({id, text} JSONL) — percentages, counts,
times, multipliers, money, scores, ranges, averages; not versions — line by line, and
checks each against a facts file (JSONL, see docs/format/facts.md):

  outdated      the line names its own source ("(source: X)", "according to X",
                "[cite:X]"): taken as verified, reported as info to re-check
  unverifiable  no fact matches it (or the nearest one is about another year or
                entity; facts in another unit are skipped): a warning
  verified      a matching fact satisfies it (within 5%, or inside the bound it
                states: "more than 100", "up to 5%", "nearly 40%", "between X and Y")
  mismatch      a matching fact contradicts it: an error

A fact matches by similarity (Jaccard of the line and the fact's description × 0.5,
+0.3 same unit, +0.2 value agrees; at least 0.3), and must agree on the year and the
entity when both name one. A multiplier's unit is the comparative after it ("3x
faster" counts "faster"; a bare "3x" counts "x").

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

Exit status: 0 no errors, 1 an error-level diagnostic remains, 2 usage or input error.`

// lintCmd is `audit lint`: its flags and one run over an outputs file.
type lintCmd struct {
	e                                *env
	in, factsPath, out, style        string
	unverifiable, mismatch, outdated string
	opts                             lint.LintOptions
	soft                             lint.SoftenOptions
	asJSON                           bool
}

func newLintCmd(e *env) *cobra.Command {
	c := &lintCmd{e: e}
	cmd := &cobra.Command{
		Use:   "lint --input outputs.jsonl --facts facts.jsonl [--soften STYLE --out softened.jsonl]",
		Short: "Check the numbers in generated copy against known facts; flag or soften the rest",
		Long:  lintLong,
		Example: `  audit lint --input outputs.jsonl --facts facts.jsonl
  audit lint --input outputs.jsonl --facts facts.jsonl --soften moderate --out softened.jsonl
  audit lint --input page.jsonl --facts facts.jsonl --unverifiable-severity error`,
		Args: cobra.NoArgs,
		RunE: c.run,
	}
	c.flags(cmd.Flags())
	return cmd
}

func (c *lintCmd) flags(fl *pflag.FlagSet) {
	fl.StringVar(&c.in, "input", "", "model outputs, JSONL {id, text, query?} (required)")
	fl.StringVar(&c.factsPath, "facts", "", "known facts, JSONL {id, description, value, unit?, year?, date?} (required)")
	fl.StringVar(&c.style, "soften", "", "soften unverifiable claims: conservative, moderate or aggressive")
	fl.StringVar(&c.out, "out", "", "with --soften: where to write the softened outputs (JSONL)")
	fl.Float64Var(&c.soft.ConfidenceThreshold, "confidence-threshold", 0.5, "with --soften: leave claims whose check is at least this confident")
	fl.BoolVar(&c.soft.SoftenMismatches, "soften-mismatches", false, "with --soften: make mismatches soft-eligible (they stay errors otherwise)")
	fl.StringVar(&c.unverifiable, "unverifiable-severity", "warning", "severity of unverifiable claims: error, warning, info or off")
	fl.StringVar(&c.mismatch, "mismatch-severity", "error", "severity of mismatched claims: error, warning, info or off")
	fl.StringVar(&c.outdated, "outdated-severity", "info", "severity of claims that name their own source: error, warning, info or off")
	fl.BoolVar(&c.opts.IncludeHedged, "include-hedged", false, "also check hedged claims (\"about 40%\", \"up to 3x\")")
	fl.BoolVar(&c.opts.IncludeContextual, "include-contextual", false, "also check contextual claims (\"for example\", \"sample\")")
	fl.BoolVar(&c.asJSON, "json", false, "print one JSON object per claim instead of diagnostics")
	fl.Float64Var(&c.opts.Match.MinSimilarity, "min-similarity", 0.3, "the similarity a fact needs to match a claim (Jaccard × 0.5 + unit 0.3 + value 0.2), in (0, 1]")
}

// check validates the flags (exit 2 before any work).
func (c *lintCmd) check(cmd *cobra.Command) error {
	if err := requireFlags(cmd, "input", "facts"); err != nil {
		return err
	}
	if ms := c.opts.Match.MinSimilarity; !(ms > 0 && ms <= 1) {
		return usageErrorf("--min-similarity %v is not in (0, 1]", ms)
	}
	var err error
	for _, s := range []struct {
		flag, v string
		to      *lint.Severity
	}{{"unverifiable-severity", c.unverifiable, &c.opts.UnverifiableSeverity}, {"mismatch-severity", c.mismatch, &c.opts.MismatchSeverity}, {"outdated-severity", c.outdated, &c.opts.OutdatedSeverity}} {
		if *s.to, err = lint.ParseSeverity(s.v); err != nil {
			return usageErrorf("--%s: %v", s.flag, err)
		}
	}
	if c.style != "" {
		if c.soft.Style, err = lint.ParseSoftenStyle(c.style); err != nil {
			return usageErrorf("--soften: %v", err)
		}
		if c.out == "" {
			return usageErrorf("--soften needs --out, the file to write the softened outputs to")
		}
		if err := writeTarget(c.out, c.in, c.factsPath); err != nil {
			return err
		}
	} else if c.out != "" {
		return usageErrorf("--out is for --soften")
	}
	if c.soft.ConfidenceThreshold <= 0 || c.soft.ConfidenceThreshold > 1 {
		return usageErrorf("--confidence-threshold must be in (0, 1]")
	}
	return nil
}

// lintRun is the state of one run: where diagnostics and softened outputs
// go, and the counts.
type lintRun struct {
	*lintCmd
	facts      []lint.Fact
	w          *bufio.Writer
	enc        *json.Encoder
	sw         *bufio.Writer // softened outputs, with --soften
	counts     map[string]int
	errorsLeft int
}

func (c *lintCmd) run(cmd *cobra.Command, _ []string) error {
	if err := c.check(cmd); err != nil {
		return err
	}
	facts, err := lint.ReadFactsFile(cmd.Context(), c.factsPath)
	if err != nil {
		return err
	}
	f, err := userfile.Open(cmd.Context(), c.in)
	if err != nil {
		return fmt.Errorf("open input: %w", err)
	}
	defer f.Close()
	r := &lintRun{lintCmd: c, facts: facts, w: bufio.NewWriter(c.e.stdout), counts: map[string]int{}}
	defer r.w.Flush()
	r.enc = json.NewEncoder(r.w)
	r.enc.SetEscapeHTML(false)
	var softened *reports.AtomicFile
	if c.soft.Style != "" {
		if softened, err = reports.CreateAtomic(c.out); err != nil {
			return err
		}
		defer softened.Abort()
		r.sw = bufio.NewWriter(softened)
	}
	if err := r.lintFile(cmd.Context(), f); err != nil {
		return err
	}
	if !c.asJSON {
		r.summary()
	}
	if softened != nil {
		if err := r.sw.Flush(); err != nil {
			return fmt.Errorf("write softened outputs: %w", err)
		}
		if err := softened.Commit(); err != nil {
			return fmt.Errorf("write softened outputs: %w", err)
		}
	}
	if r.errorsLeft > 0 {
		r.w.Flush()
		return &exitError{code: exitGate, err: errors.New("lint errors"), quiet: true}
	}
	return nil
}

// lintFile lints (and with --soften rewrites) every output of the file.
func (r *lintRun) lintFile(ctx context.Context, f io.Reader) error {
	return extract.ReadOutputsAt(ctx, f, r.in, func(line int, o extract.Output) error {
		findings := lint.Lint(o.Text, r.facts, r.opts)
		var ss []lint.Softening
		if r.soft.Style != "" {
			var text string
			text, ss = lint.Soften(o.Text, findings, r.soft)
			o.Text = text
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if _, err := r.sw.Write(append(b, '\n')); err != nil {
				return fmt.Errorf("write softened outputs: %w", err)
			}
		}
		for i, fd := range findings {
			if err := r.report(line, o.ID, fd, ss, i); err != nil {
				return err
			}
		}
		return nil
	})
}

// report prints one finding as a diagnostic (or a JSON record) and counts it.
func (r *lintRun) report(line int, id string, fd lint.Finding, ss []lint.Softening, i int) error {
	r.counts[fd.Check.Status]++
	sev, msg := fd.Severity, fd.Message
	replacement := ""
	if ss != nil && ss[i].Replacement != "" {
		r.counts["softened"]++
		replacement = ss[i].Replacement
		sev = lint.SeverityInfo
		msg = fmt.Sprintf("Softened claim: %q → %q at line %d (was %s)", fd.Claim.Text, replacement, fd.Claim.Line, fd.Check.Status)
	}
	if sev == lint.SeverityError {
		r.errorsLeft++
	}
	if r.asJSON {
		return r.enc.Encode(lintRecord(r.in, line, id, fd, sev, replacement))
	}
	if sev != "" {
		fmt.Fprintf(r.w, "%s:%d: %s: %s\n", termSafe(r.in), line, sev, termSafe(msg))
	}
	return nil
}

func (r *lintRun) summary() {
	c := r.counts
	n := c[lint.NumericVerified] + c[lint.NumericOutdated] + c[lint.NumericUnverifiable] + c[lint.NumericMismatch]
	fmt.Fprintf(r.w, "%d numeric claims: %d verified, %d outdated, %d unverifiable, %d mismatch", n,
		c[lint.NumericVerified], c[lint.NumericOutdated], c[lint.NumericUnverifiable], c[lint.NumericMismatch])
	if r.soft.Style != "" {
		fmt.Fprintf(r.w, "; %d softened (%s) in %s", c["softened"], r.soft.Style, r.out)
	}
	fmt.Fprintln(r.w)
}

// lintRecord is one claim in --json output.
func lintRecord(file string, line int, id string, f lint.Finding, sev lint.Severity, softened string) map[string]any {
	r := map[string]any{
		"file": file, "line": line, "output_id": id, "text_line": f.Claim.Line, "claim": f.Claim.Text,
		"type": lint.ClaimType(f.Claim.Text, f.Claim.Unit, f.Claim.Pattern), "status": f.Check.Status,
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
