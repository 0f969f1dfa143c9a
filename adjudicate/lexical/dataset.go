package lexical

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/userfile"
)

// Set is one labelled data set on disk, in the harness formats.
type Set struct {
	Name   string // how tables and provenance name it
	Corpus string
	Spans  string // optional
	Claims string
	Gold   string // optional when the claims carry labels
	// Synthetic marks a set made by the project's generator (its folder's
	// manifest.json names a generator_version); tables keep it out of the
	// means over real sets.
	Synthetic bool
}

// SetFromDir finds a set's files in a folder: corpus.jsonl, claims.jsonl and,
// when present, spans.jsonl and gold.jsonl (or gold_labels.jsonl). The set is
// named after the folder.
func SetFromDir(dir string) (Set, error) {
	s := Set{Name: filepath.Base(filepath.Clean(dir))}
	exists := func(name string) string {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return ""
	}
	if s.Corpus = exists("corpus.jsonl"); s.Corpus == "" {
		return s, fmt.Errorf("data set %s: no corpus.jsonl", dir)
	}
	if s.Claims = exists("claims.jsonl"); s.Claims == "" {
		return s, fmt.Errorf("data set %s: no claims.jsonl", dir)
	}
	s.Spans = exists("spans.jsonl")
	if s.Gold = exists("gold.jsonl"); s.Gold == "" {
		s.Gold = exists("gold_labels.jsonl")
	}
	if b, err := userfile.ReadFile(filepath.Join(dir, "manifest.json"), userfile.MaxSmall); err == nil {
		var m struct {
			GeneratorVersion int `json:"generator_version"`
		}
		s.Synthetic = json.Unmarshal(b, &m) == nil && m.GeneratorVersion > 0
	}
	return s, nil
}

// Retrieve finds the passages of claims in an index, in claim order. The
// pipeline's retriever (audit.Retriever) is passed in, so that this backend
// does not import the pipeline that runs it.
type Retrieve func(ctx context.Context, ix *corpus.Index, cs []claims.Claim, k int) ([]adjudicate.Pair, error)

// Prepared is a set's labelled claims turned into feature vectors: what
// fitting and evaluation need, computed once.
type Prepared struct {
	Name      string
	Synthetic bool
	IDs       []string
	X         [][nf]float64
	Y         []int
	Inputs    map[string]string // role_sha256 → hash of each input file
	// Claims and Pairs are the labelled claims and their retrieved
	// passages, Best each claim's deciding passage (-1 when none), for a
	// decision layer that reads more than the features (Decide).
	Claims []claims.Claim
	Pairs  []adjudicate.Pair
	Best   []int
	// Decide, when set, turns claim i's logits into its predicted label
	// (Evaluate); nil is the argmax.
	Decide func(i int, z [3]float64) int
}

// PrepareOptions say where indexes go and how many passages to retrieve.
type PrepareOptions struct {
	IndexDir string // the set's index folder, built or reused
	K        int    // passages per claim; default 5
}

// Prepare indexes a set's corpus (or reuses an up-to-date index), retrieves
// k passages for every labelled claim and computes their features, with
// idf from that set's index.
func Prepare(ctx context.Context, s Set, retrieve Retrieve, opts PrepareOptions) (*Prepared, error) {
	if opts.K == 0 {
		opts.K = 5
	}
	if opts.IndexDir == "" {
		return nil, errors.New("prepare: no index folder")
	}
	res, err := corpus.EnsureIndex(ctx, corpus.EnsureRequest{Dir: opts.IndexDir, CorpusPath: s.Corpus, SpansPath: s.Spans})
	if err != nil {
		return nil, fmt.Errorf("data set %s: %w", s.Name, err)
	}
	ix, err := corpus.OpenIndex(opts.IndexDir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	cs, err := claims.Load(ctx, s.Claims, s.Gold)
	if err != nil {
		return nil, err
	}
	var labelled []claims.Claim
	for _, c := range cs {
		if c.Label != "" {
			labelled = append(labelled, c)
		}
	}
	if len(labelled) == 0 {
		return nil, fmt.Errorf("data set %s: %w", s.Name, ErrNoLabels)
	}
	pairs, err := retrieve(ctx, ix, labelled, opts.K)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Name: s.Name, Synthetic: s.Synthetic, IDs: make([]string, len(pairs)), X: make([][nf]float64, len(pairs)), Y: make([]int, len(pairs)), Inputs: map[string]string{}}
	for i, pair := range pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.IDs[i] = labelled[i].ID
		var best int
		p.X[i], best = Features(pair, ix)
		p.Best = append(p.Best, best)
		p.Y[i] = LabelIndex(labelled[i].Label)
	}
	p.Claims, p.Pairs = labelled, pairs
	for _, in := range res.Manifest.Inputs {
		p.Inputs[in.Role+"_sha256"] = in.SHA256
	}
	for role, path := range map[string]string{"claims": s.Claims, "gold": s.Gold} {
		if path != "" {
			sum, _, err := corpus.HashFile(path)
			if err != nil {
				return nil, err
			}
			p.Inputs[role+"_sha256"] = sum
		}
	}
	return p, nil
}

// ErrNoLabels is returned for a set none of whose claims has a gold label.
var ErrNoLabels = errors.New("no claim has a gold label: give gold labels or labels in the claims file")

// LabelIndex is a label's logit index.
func LabelIndex(l claims.Label) int {
	switch l {
	case claims.Supported:
		return adjudicate.Supported
	case claims.Unsupported:
		return adjudicate.Unsupported
	}
	return adjudicate.Insufficient
}
