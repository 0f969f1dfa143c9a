package lexical

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/claimaudit/claimaudit/label"
	"os"
	"path/filepath"
)

// Pipeline trains and evaluates the model on data sets on disk: each set is
// indexed, its labelled claims retrieved and turned into features (idf from
// its own index), and the model fitted on them together.
type Pipeline struct {
	Retrieve Retrieve
	// IndexRoot holds one index folder per set, named after the set, built
	// or reused; "" uses a temporary folder removed afterwards.
	IndexRoot string
	K         int // passages per claim; default 5
	Train     TrainOptions
	MadeBy    string // recorded in the provenance, e.g. "audit train"
}

// Prepare turns every set into feature vectors.
func (p Pipeline) Prepare(ctx context.Context, sets []Set) ([]*Prepared, error) {
	if p.K == 0 {
		p.K = 5
	}
	root := p.IndexRoot
	if root == "" {
		tmp, err := os.MkdirTemp("", "claimaudit-train-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		root = tmp
	}
	seen := map[string]bool{}
	var out []*Prepared
	for _, s := range sets {
		if seen[s.Name] {
			return nil, fmt.Errorf("data set %q given twice", s.Name)
		}
		seen[s.Name] = true
		ps, err := Prepare(ctx, s, p.Retrieve, PrepareOptions{IndexDir: filepath.Join(root, s.Name), K: p.K})
		if err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// Fit fits the model on prepared sets and records its provenance: the sets
// with their inputs' sha256 and label counts, k, the options and the
// training metrics. Nothing in it depends on where the files were.
func (p Pipeline) Fit(sets []*Prepared) (*Weights, map[string]float64, error) {
	if p.K == 0 {
		p.K = 5
	}
	w, m, err := Fit(sets, p.Train)
	if err != nil {
		return nil, nil, err
	}
	var desc []map[string]any
	for _, s := range sets {
		var counts [3]int
		for _, y := range s.Y {
			counts[y]++
		}
		desc = append(desc, map[string]any{"name": s.Name, "generated": s.Synthetic, "claims": len(s.Y), "inputs": s.Inputs,
			"labels": map[string]int{string(label.Supported): counts[0], string(label.Unsupported): counts[1], string(label.Insufficient): counts[2]}})
	}
	w.Provenance = map[string]any{"made_by": p.MadeBy, "k": p.K, "learner": w.Learner(), "balance": p.Train.Balance, "sets": desc, "training": m}
	return w, m, nil
}

// Marshal encodes weights as the file format: indented JSON, one final
// newline, the same bytes for the same weights.
func (w *Weights) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
