package lexical

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/userfile"
)

// Weights are a fitted logistic model over standardised features: either
// multinomial (one score per class, the logits) or, with Nested, two binary
// models: W[2] scores insufficient vs the rest and W[0] supported vs
// unsupported when the evidence suffices; the logits are then
// log-probabilities (nestedLogits) and W[1] is zero.
type Weights struct {
	Format         string         `json:"format"`
	FeatureVersion int            `json:"feature_version"`
	Features       []string       `json:"features"`
	Mean           []float64      `json:"mean"`
	Std            []float64      `json:"std"`
	W              [3][]float64   `json:"weights"` // per class: supported, unsupported, insufficient
	Bias           [3]float64     `json:"bias"`
	Nested         bool           `json:"nested,omitempty"`
	Boost          *Boost         `json:"boost,omitempty"` // trees added to the logistic logits
	Provenance     map[string]any `json:"provenance"`
}

const weightsFormat = "claimaudit-lexical-weights"

//go:embed weights.json
var defaultWeights []byte

// DefaultWeights returns the embedded weights file.
func DefaultWeights() []byte { return defaultWeights }

// ParseWeights reads and checks a weights file.
func ParseWeights(b []byte) (*Weights, error) {
	var w Weights
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("lexical weights: %w", err)
	}
	if w.Format != weightsFormat {
		return nil, fmt.Errorf("lexical weights: format %q, want %q", w.Format, weightsFormat)
	}
	if w.FeatureVersion != FeatureVersion || strings.Join(w.Features, ",") != strings.Join(FeatureNames, ",") {
		return nil, fmt.Errorf("lexical weights: made for feature set %d %v, this build computes %d %v", w.FeatureVersion, w.Features, FeatureVersion, FeatureNames)
	}
	if len(w.Mean) != nf || len(w.Std) != nf || len(w.W[0]) != nf || len(w.W[1]) != nf || len(w.W[2]) != nf {
		return nil, fmt.Errorf("lexical weights: wrong dimensions")
	}
	for _, v := range append(append(append(append(append([]float64{}, w.Mean...), w.Std...), w.W[0]...), w.W[1]...), w.W[2]...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("lexical weights: NaN or infinite value")
		}
	}
	if w.Boost != nil {
		for r, round := range w.Boost.Trees {
			for k, t := range round {
				if t == nil {
					return nil, fmt.Errorf("lexical weights: boost round %d class %d: no tree", r, k)
				}
				if err := t.check(); err != nil {
					return nil, fmt.Errorf("lexical weights: boost round %d class %d: %w", r, k, err)
				}
			}
		}
	}
	return &w, nil
}

// Learner names the model kind, for provenance.
func (w *Weights) Learner() string {
	l := "multinomial logistic regression"
	if w.Nested {
		l = "nested logistic regression (insufficient vs the rest on coverage features, then supported vs unsupported)"
	}
	if w.Boost != nil {
		l += fmt.Sprintf(" + %d rounds of depth-limited boosted trees", len(w.Boost.Trees))
	}
	return l
}

// Logits applies the model to a feature vector.
func (w *Weights) Logits(x [nf]float64) [3]float64 {
	var z [3]float64
	for k := 0; k < 3; k++ {
		z[k] = w.Bias[k]
		for j := 0; j < nf; j++ {
			z[k] += w.W[k][j] * (x[j] - w.Mean[j]) / w.Std[j]
		}
	}
	if w.Nested {
		z = nestedLogits(z[2], z[0])
	}
	if w.Boost != nil {
		for _, round := range w.Boost.Trees {
			for k := 0; k < 3; k++ {
				z[k] += w.Boost.LearningRate * round[k].eval(&x)
			}
		}
	}
	return z
}

// Verifier is the lexical backend.
type Verifier struct {
	w       *Weights
	stats   Stats
	version string
	cache   *passageCache
}

// passageCacheSize bounds the analysed passages a verifier keeps. A
// passage holds vocabulary ids in sorted slices and makes its numeric
// facts only when a claim with a number reads it (a generated window: ~2
// KB, ~4 KB with its facts, against ~10 KB as maps of strings before), so
// 16,384 of them take less memory than the 10,000 of before: peak RSS of
// a 20k-claim generated run 298 MB against 316 MB, 32,768 raised it to
// 349 MB for 5% less CPU. Generated runs read more distinct passages than
// that (20k claims ~30k, 100k claims ~37k); holding them all cut a 100k
// run's CPU by another ~10% but raised its peak RSS to 487 MB against
// ~405 MB (BENCHMARKS.md, "Lexical verifier: scanners and interned
// passages").
const passageCacheSize = 16384

// New makes a verifier from a weights file ("" for the embedded default).
func New(weightsPath string, stats adjudicate.CorpusStats) (*Verifier, error) {
	b := defaultWeights
	if weightsPath != "" {
		var err error
		if b, err = userfile.ReadFile(weightsPath, userfile.MaxLarge); err != nil {
			return nil, fmt.Errorf("read weights: %w", err)
		}
	}
	w, err := ParseWeights(b)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &Verifier{w: w, stats: stats, version: "lexical/" + hex.EncodeToString(sum[:6]), cache: newPassageCache(passageCacheSize)}, nil
}

// Backend describes the lexical verifier for the registry; it owns --weights.
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "lexical",
		Help: "pure-Go lexical/numeric verifier with embedded weights (default)",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			weights := fs.String("weights", "", "lexical: weights file from 'audit train' (default: the embedded weights)")
			return func(env adjudicate.Env) (adjudicate.Verifier, error) { return New(*weights, env.Stats) }
		},
	}
}

// Version identifies the weights, for the verdict cache.
func (v *Verifier) Version() string { return v.version }

// PreferredBatchSize: verdicts are independent and cheap; batches only
// amortise scheduling.
func (v *Verifier) PreferredBatchSize() int { return 64 }

// Verify computes features and logits for each pair. Consecutive pairs of
// one claim (a cited document's chunks, each a pair) analyse the claim
// once, after all their passages.
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(batch))
	for i := 0; i < len(batch); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := i + 1
		for j < len(batch) && batch[j].Claim == batch[i].Claim {
			j++
		}
		pds := make([][]*passage, j-i)
		for k := range pds {
			pds[k] = v.cache.passages(batch[i+k])
		}
		c := analyseClaim(batch[i].Claim, v.stats, v.cache.vocab)
		for k, p := range batch[i:j] {
			x, best := featuresOf(p, pds[k], &c)
			out[i+k] = adjudicate.Verdict{Logits: v.w.Logits(x), Passage: best, Rationale: rationale(p, x, best)}
		}
		i = j
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// rationale names the deciding passage and the features that decided.
func rationale(p adjudicate.Pair, x [nf]float64, best int) string {
	if best < 0 {
		return "no evidence retrieved"
	}
	ev := p.Passages[best]
	var why []string
	why = append(why, fmt.Sprintf("covers %.0f%% of the claim's terms", 100*x[2]))
	for _, f := range []struct {
		i    int
		what string
	}{{7, "the number agrees"}, {8, "the number differs"}, {9, "no number to compare"}, {12, "the year agrees"}, {13, "the year differs"},
		{14, "several years and none claimed"}, {15, "negation differs"}, {16, "an antonym crosses"}, {17, "the claim hedges"}, {5, "the claimed entity is absent"}} {
		if x[f.i] > 0 {
			why = append(why, f.what)
		}
	}
	loc := ev.DocID
	if ev.SpanID != "" {
		loc += "/" + ev.SpanID
	}
	return fmt.Sprintf("%s [%d,%d): %s", loc, ev.Start, ev.End, strings.Join(why, "; "))
}
