package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/spf13/cobra"
)

// validateCmd is `audit validate`.
type validateCmd struct {
	e                                           *env
	corpusPath, spansPath, claimsPath, goldPath string
	asJSON                                      bool
}

func newValidateCmd(e *env) *cobra.Command {
	c := &validateCmd{e: e}
	cmd := &cobra.Command{
		Use: "validate [--corpus F [--spans F]] [--claims F [--gold F]] [--json]",
		Example: `  audit validate --corpus corpus.jsonl --spans spans.jsonl
  audit validate --claims claims.jsonl --gold gold.jsonl
  audit validate --corpus corpus.jsonl --claims claims.jsonl --json`,
		Short: "Check corpus, span, claim and gold files against the formats; write nothing",
		Long: `validate reads the corpus (JSONL documents), spans (JSONL evidence spans), claims
(JSONL atomic claims) and gold labels ({claim_id, label} JSONL) it is given and reports
every defect as file:line:col: field: message on stderr, with a summary on stdout
(--json for a machine-readable report). It writes no files.

Exit status is 2 when any defect was found, 0 otherwise.`,
		Args: cobra.NoArgs,
		RunE: c.run,
	}
	f := cmd.Flags()
	f.StringVar(&c.corpusPath, "corpus", "", "corpus documents, JSONL")
	f.StringVar(&c.spansPath, "spans", "", "evidence spans, JSONL")
	f.StringVar(&c.claimsPath, "claims", "", "atomic claims, JSONL")
	f.StringVar(&c.goldPath, "gold", "", "gold labels {claim_id, label}, JSONL")
	f.BoolVar(&c.asJSON, "json", false, "print a JSON report on stdout instead of text")
	return cmd
}

func (c *validateCmd) run(cmd *cobra.Command, _ []string) error {
	switch {
	case c.corpusPath == "" && c.claimsPath == "":
		return usageErrorf("%s: give --corpus, --claims or both", cmd.CommandPath())
	case c.spansPath != "" && c.corpusPath == "":
		return usageErrorf("%s: --spans needs --corpus", cmd.CommandPath())
	case c.goldPath != "" && c.claimsPath == "":
		return usageErrorf("%s: --gold needs --claims", cmd.CommandPath())
	}
	if err := requireClaims(c.claimsPath); err != nil {
		return err
	}
	ctx := cmd.Context()
	v := corpus.NewValidator(corpus.LoadOptions{})
	cv := claims.NewValidator(false)
	for _, in := range []struct {
		role, path string
		read       func(context.Context, string, string) error
	}{{"corpus", c.corpusPath, v.ReadFile}, {"spans", c.spansPath, v.ReadFile}, {"claims", c.claimsPath, cv.ReadFile}, {"gold", c.goldPath, cv.ReadFile}} {
		if in.path == "" {
			continue
		}
		if err := in.read(ctx, in.role, in.path); err != nil {
			return err
		}
	}
	if c.corpusPath != "" {
		// The checks on the corpus as a whole (it has documents) are the
		// ones 'audit index' applies.
		_, _ = v.Corpus()
	}
	docs, spans := v.Counts()
	nClaims, nGold := cv.Counts()
	errs := &jsonl.ErrorList{}
	for _, l := range []*jsonl.ErrorList{v.Errors(), cv.Errors()} {
		errs.Errors = append(errs.Errors, l.Errors...)
		errs.Total += l.Total
	}
	summary := validateSummary{Documents: docs, Spans: spans, Claims: nClaims, Gold: nGold, Labelled: cv.GoldIndex().Labelled()}
	if c.asJSON {
		if err := writeValidateJSON(c.e, v.Inputs(), summary, errs); err != nil {
			return err
		}
		if errs.Total > 0 {
			fmt.Fprintf(c.e.stderr, "%d errors (listed in the JSON report)\n", errs.Total)
			return &exitError{code: exitInput, err: errs, quiet: true}
		}
		return nil
	}
	out := c.e.stdout
	for _, in := range v.Inputs() {
		fmt.Fprintf(out, "%-7s %s: %d records, sha256 %s\n", in.Role, in.Path, in.Records, in.SHA256[:12])
	}
	if c.claimsPath != "" {
		fmt.Fprintf(out, "%-7s %s: %d records\n", "claims", c.claimsPath, nClaims)
	}
	if c.goldPath != "" {
		fmt.Fprintf(out, "%-7s %s: %d records\n", "gold", c.goldPath, nGold)
	}
	if errs.Total > 0 {
		fmt.Fprintf(out, "INVALID: %d errors\n", errs.Total)
		return errs
	}
	fmt.Fprintf(out, "OK: %s, no errors\n", summary)
	return nil
}

type jsonError struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

type validateSummary struct {
	Documents int `json:"documents"`
	Spans     int `json:"spans"`
	Claims    int `json:"claims"`
	Gold      int `json:"gold"`
	Labelled  int `json:"labelled_claims"`
}

func (s validateSummary) String() string {
	var parts []string
	if s.Documents > 0 {
		parts = append(parts, fmt.Sprintf("%d documents, %d spans", s.Documents, s.Spans))
	}
	if s.Claims > 0 {
		parts = append(parts, fmt.Sprintf("%d claims (%d with a gold label)", s.Claims, s.Labelled))
	}
	return strings.Join(parts, ", ")
}

func writeValidateJSON(e *env, inputs []corpus.Input, summary validateSummary, errs *jsonl.ErrorList) error {
	list := make([]jsonError, 0, len(errs.Errors))
	for i, pe := range errs.Errors {
		if e.maxErrors > 0 && i >= e.maxErrors {
			break
		}
		list = append(list, jsonError{File: pe.File, Line: pe.Line, Col: pe.Col, Field: pe.Field, Message: pe.Err.Error()})
	}
	rep := struct {
		Valid  bool           `json:"valid"`
		Inputs []corpus.Input `json:"inputs"`
		validateSummary
		ErrorCount int         `json:"error_count"`
		Errors     []jsonError `json:"errors"`
	}{errs.Total == 0, inputs, summary, errs.Total, list}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
