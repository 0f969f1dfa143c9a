package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claimaudit/claimaudit/benchdata"
	"github.com/spf13/cobra"
)

func newConvertCmd(e *env) *cobra.Command {
	var grounded, dir string
	cmd := &cobra.Command{
		Use: "convert --grounded FILE --out DIR",
		Example: `  audit convert --grounded pairs.jsonl --out pairs
  audit convert --grounded benchdata/grounded/example.jsonl --out example
  # then score a verifier per dataset:
  audit run --corpus pairs/corpus.jsonl --claims pairs/claims.jsonl --slice-by meta.dataset --out pairs-run`,
		Short: "Convert a grounded benchmark file (doc, claim, label 0/1, dataset) into corpus and claims",
		Long: `convert --grounded reads a file in the layout of the grounded verification benchmarks
(LLM-AggreFact and its kin): JSONL, one (document, claim) pair per line,

  {"doc": "...", "claim": "...", "label": 1, "dataset": "news", "id": "optional"}

label 1 = the document supports the claim, 0 = it does not. It writes DIR/corpus.jsonl
(each distinct document once) and DIR/claims.jsonl (each claim citing its document, with
"evidence": "cited" so that it is judged against that document alone, whole and chunk by
chunk; its gold label, 1 supported and 0 unsupported; and meta.dataset). Then audit run
with --slice-by meta.dataset scores any verifier per dataset: binary balanced accuracy
(supported vs not) and ROC AUC (threshold-free) in metrics.parquet and report.html, with
calibration as in any run. Format: docs/format/grounded.md. Every defect is reported as
file:line:col: field (exit 2) and nothing is written unless the whole file is sound.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "grounded", "out"); err != nil {
				return err
			}
			if err := notAnOutputFolder(dir); err != nil {
				return err
			}
			for _, f := range []string{"corpus.jsonl", "claims.jsonl"} {
				if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
					return usageErrorf("--out %s already holds %s: choose an empty folder", dir, f)
				}
			}
			c, err := benchdata.ConvertGrounded(cmd.Context(), grounded, dir)
			if err != nil {
				return err
			}
			var per []string
			for _, d := range c.DatasetNames() {
				name := d
				if name == "" {
					name = "(no dataset)"
				}
				per = append(per, fmt.Sprintf("%s %d", name, c.Datasets[d]))
			}
			fmt.Fprintf(e.stdout, "wrote %d claims (%s) citing %d documents to %s\n", c.Pairs, strings.Join(per, ", "), c.Docs, dir)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&grounded, "grounded", "", "grounded benchmark JSONL: {doc, claim, label 0|1, dataset?, id?} per line (required)")
	f.StringVar(&dir, "out", "", "folder to write corpus.jsonl and claims.jsonl into (required)")
	return cmd
}
