package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/audit"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/reports"
	"github.com/spf13/cobra"
)

func newTrainCmd(e *env) *cobra.Command {
	var corpusPath, spansPath, claimsPath, goldPath, out, indexDir string
	var k int
	var opts lexical.TrainOptions
	cmd := &cobra.Command{
		Use:   "train --corpus F [--spans F] --claims F [--gold F] --out weights.json",
		Short: "Fit the lexical verifier's weights on labelled claims",
		Long: `train retrieves the top-k passages for every labelled claim, computes the lexical
verifier's features and fits its three-class logistic model (L2, L-BFGS, from zero: the
same inputs give byte-identical weights). The weights file records its provenance: the
inputs' sha256, k, the penalty and the training metrics. Use it with
'audit run --weights F'; 'make weights' rebuilds the embedded default.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "corpus", "claims", "out"); err != nil {
				return err
			}
			ctx := cmd.Context()
			if indexDir == "" {
				tmp, err := os.MkdirTemp("", "claimaudit-train-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				indexDir = filepath.Join(tmp, "index")
			}
			res, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: indexDir, CorpusPath: corpusPath, SpansPath: spansPath})
			if err != nil {
				return err
			}
			ix, err := corpus.OpenIndex(indexDir)
			if err != nil {
				return err
			}
			defer ix.Close()
			cs, err := claims.Load(ctx, claimsPath, goldPath)
			if err != nil {
				return err
			}
			var labelled []claims.Claim
			for _, c := range cs {
				if c.Label != "" {
					labelled = append(labelled, c)
				}
			}
			if len(labelled) == 0 {
				return usageErrorf("no claim has a gold label: give --gold or labels in the claims file")
			}
			pairs, err := audit.Retriever{Index: ix, K: k}.Pairs(ctx, labelled, 0)
			if err != nil {
				return err
			}
			ex := make([]lexical.Example, len(pairs))
			for i, p := range pairs {
				ex[i] = lexical.Example{Pair: p, Label: labelIndex(labelled[i].Label)}
			}
			w, m, err := lexical.Train(ex, ix, opts)
			if err != nil {
				return err
			}
			inputs := map[string]string{}
			for _, in := range res.Manifest.Inputs {
				inputs[in.Role+"_sha256"] = in.SHA256
			}
			for role, path := range map[string]string{"claims": claimsPath, "gold": goldPath} {
				if path != "" {
					sum, _, err := corpus.HashFile(path)
					if err != nil {
						return err
					}
					inputs[role+"_sha256"] = sum
				}
			}
			w.Provenance = map[string]any{"inputs": inputs, "k": k, "training": m, "made_by": "audit train"}
			b, err := json.MarshalIndent(w, "", "  ")
			if err != nil {
				return err
			}
			if err := writeAtomic(out, append(b, '\n')); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "trained on %d claims: accuracy %.3f, macro-F1 %.3f, NLL %.3f → %s\n", int(m["n"]), m["accuracy"], m["macro_f1"], m["nll"], out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&corpusPath, "corpus", "", "corpus documents, JSONL (required)")
	f.StringVar(&spansPath, "spans", "", "evidence spans, JSONL")
	f.StringVar(&claimsPath, "claims", "", "claims, JSONL (required)")
	f.StringVar(&goldPath, "gold", "", "gold labels {claim_id, label}, JSONL")
	f.StringVar(&out, "out", "", "weights file to write (required)")
	f.StringVar(&indexDir, "index", "", "index folder to build or reuse (default: a temporary one)")
	f.IntVar(&k, "k", 5, "passages retrieved per claim")
	f.Float64Var(&opts.L2, "l2", 1e-3, "L2 penalty")
	return cmd
}

func labelIndex(l claims.Label) int {
	switch l {
	case claims.Supported:
		return 0
	case claims.Unsupported:
		return 1
	}
	return 2
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
