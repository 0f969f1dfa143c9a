package main

import (
	"encoding/json"
	"fmt"

	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/spf13/cobra"
)

func newValidateCmd(e *env) *cobra.Command {
	var corpusPath, spansPath string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate --corpus F [--spans F] [--json]",
		Short: "Check corpus and span files against the formats; write nothing",
		Long: `validate reads the corpus (JSONL documents) and spans (JSONL evidence spans) and
reports every defect as file:line:col: field: message on stderr, with a summary on
stdout (--json for a machine-readable report). It writes no files.

Exit status is 2 when any defect was found, 0 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "corpus"); err != nil {
				return err
			}
			v := corpus.NewValidator(corpus.LoadOptions{})
			if err := v.ReadFile(cmd.Context(), "corpus", corpusPath); err != nil {
				return err
			}
			if spansPath != "" {
				if err := v.ReadFile(cmd.Context(), "spans", spansPath); err != nil {
					return err
				}
			}
			docs, spans := v.Counts()
			errs := v.Errors()
			if asJSON {
				if err := writeValidateJSON(e, v.Inputs(), docs, spans, errs); err != nil {
					return err
				}
				if errs.Total > 0 {
					printErrorList(e.stderr, &jsonl.ErrorList{Total: errs.Total}, 0)
					return &exitError{code: exitInput, err: errs, quiet: true}
				}
				return nil
			}
			for _, in := range v.Inputs() {
				fmt.Fprintf(e.stdout, "%-7s %s: %d records, sha256 %s\n", in.Role, in.Path, in.Records, in.SHA256[:12])
			}
			if errs.Total > 0 {
				fmt.Fprintf(e.stdout, "INVALID: %d errors\n", errs.Total)
				return errs
			}
			fmt.Fprintf(e.stdout, "OK: %d documents, %d spans, no errors\n", docs, spans)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&corpusPath, "corpus", "", "corpus documents, JSONL (required)")
	f.StringVar(&spansPath, "spans", "", "evidence spans, JSONL")
	f.BoolVar(&asJSON, "json", false, "print a JSON report on stdout instead of text")
	return cmd
}

type jsonError struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func writeValidateJSON(e *env, inputs []corpus.Input, docs, spans int, errs *jsonl.ErrorList) error {
	list := make([]jsonError, 0, len(errs.Errors))
	for i, pe := range errs.Errors {
		if e.maxErrors > 0 && i >= e.maxErrors {
			break
		}
		list = append(list, jsonError{File: pe.File, Line: pe.Line, Col: pe.Col, Field: pe.Field, Message: pe.Err.Error()})
	}
	rep := struct {
		Valid      bool           `json:"valid"`
		Inputs     []corpus.Input `json:"inputs"`
		Documents  int            `json:"documents"`
		Spans      int            `json:"spans"`
		ErrorCount int            `json:"error_count"`
		Errors     []jsonError    `json:"errors"`
	}{errs.Total == 0, inputs, docs, spans, errs.Total, list}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
