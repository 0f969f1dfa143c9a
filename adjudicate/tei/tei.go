// Package tei is the verifier for a sequence-classification NLI model
// served by Hugging Face Text Embeddings Inference (TEI): (passage, claim)
// pairs — the passage first, as the premise, exactly as the onnx and triton
// backends encode them — go to POST /predict, the server tokenises (truncating the longer
// text of a pair first), and the raw label scores come back by label name.
// At start GET /info must describe a classifier whose id2label maps onto
// our three labels as the onnx backend maps a config.json's id2label
// (entailment → supported, contradiction → unsupported, neutral →
// insufficient); the deciding passage is picked as the onnx backend picks
// it.
//
// Protocol: TEI's OpenAPI document (huggingface/text-embeddings-inference,
// docs/openapi.json: /info, /predict, PredictRequest, Prediction).
package tei

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"golang.org/x/sync/errgroup"
)

// DefaultMaxBatch is the most pairs in one /predict request (TEI's default
// max_client_batch_size is 32).
const DefaultMaxBatch = 32

// ErrNotClassifier is a TEI server whose model is not a 3-label classifier.
var ErrNotClassifier = errors.New("served model is not an NLI classifier")

// Options configure the tei backend.
type Options struct {
	Client   remote.Options
	MaxBatch int // pairs per request (also bounded by the server's max_client_batch_size)
}

// Backend describes the tei verifier for the registry.
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "tei",
		Help: "NLI sequence classifier served by Hugging Face Text Embeddings Inference (--endpoint URL; the server tokenises)",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			co := remote.Flags(fs)
			o := Options{}
			fs.IntVar(&o.MaxBatch, "max-batch", DefaultMaxBatch, "triton, tei: most (claim, passage) pairs in one request")
			return func(adjudicate.Env) (adjudicate.Verifier, error) {
				o.Client = *co
				return New(context.Background(), o)
			}
		},
	}
}

// Verifier sends pairs to a TEI server.
type Verifier struct {
	c        *remote.Client
	class    map[string]int // label name → our class
	maxBatch int
	version  string
}

type info struct {
	ModelID   string `json:"model_id"`
	ModelSHA  string `json:"model_sha"`
	ModelType struct {
		Classifier *struct {
			ID2Label map[string]string `json:"id2label"`
		} `json:"classifier"`
	} `json:"model_type"`
	MaxClientBatchSize int    `json:"max_client_batch_size"`
	Version            string `json:"version"`
}

// New reads the server's /info, checks the model's labels and makes the
// verifier.
func New(ctx context.Context, o Options) (*Verifier, error) {
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	c, err := remote.New(o.Client)
	if err != nil {
		return nil, fmt.Errorf("tei verifier: %w", err)
	}
	var in info
	if err := c.GetJSON(ctx, "/info", &in); err != nil {
		return nil, fmt.Errorf("tei verifier: server info: %w", err)
	}
	if in.ModelType.Classifier == nil {
		return nil, fmt.Errorf("tei verifier: model %q at %s: %w (TEI serves it as an embedding or reranker model; serve a sequence-classification NLI model)", in.ModelID, c.Endpoint(), ErrNotClassifier)
	}
	cols, err := onnx.MapLabels(in.ModelType.Classifier.ID2Label)
	if err != nil {
		return nil, fmt.Errorf("tei verifier: model %q at %s: %w: %w", in.ModelID, c.Endpoint(), ErrNotClassifier, err)
	}
	v := &Verifier{c: c, class: map[string]int{}, maxBatch: o.MaxBatch}
	for cls, col := range cols {
		v.class[in.ModelType.Classifier.ID2Label[strconv.Itoa(col)]] = cls
	}
	if in.MaxClientBatchSize > 0 && in.MaxClientBatchSize < v.maxBatch {
		v.maxBatch = in.MaxClientBatchSize
	}
	// "premise-first": verdicts cached before the pair order was the onnx
	// backend's (claim first) are never reused.
	v.version = fmt.Sprintf("tei/%s/%s@%s/premise-first", c.Endpoint(), in.ModelID, in.ModelSHA)
	return v, nil
}

// Version names the server and the model (id and revision), for the
// verdict cache.
func (v *Verifier) Version() string { return v.version }

// QueryByDefault is false: a pair model reads the user's query (as a third
// segment, adjudicate.ClaimSegment) only under --verifier-query on.
func (v *Verifier) QueryByDefault() bool { return false }

// PreferredBatchSize is the number of claims per Verify call.
func (v *Verifier) PreferredBatchSize() int { return 32 }

// Close releases idle connections.
func (v *Verifier) Close() error { return v.c.Close() }

// Secrets are the client's (API key, endpoint password): a run redacts
// them from everything it writes.
func (v *Verifier) Secrets() []string { return v.c.Secrets() }

type predictRequest struct {
	Inputs              [][2]string `json:"inputs"`
	RawScores           bool        `json:"raw_scores"`
	Truncate            bool        `json:"truncate"`
	TruncationDirection string      `json:"truncation_direction"`
}

type prediction struct {
	Score *float64 `json:"score"`
	Label string   `json:"label"`
}

// Strength implements adjudicate.PassageScorer: remote.Decide's rule.
func (v *Verifier) Strength(p [3]float64) float64 { return adjudicate.EvidenceEitherWay(p) }

// Verify scores every (claim, passage) pair, --max-batch pairs to a
// request, requests in parallel (up to --max-inflight across the process).
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pairs := remote.TextPairs(batch)
	logits := make([][3]float64, len(pairs))
	g, gctx := errgroup.WithContext(ctx)
	for start := 0; start < len(pairs); start += v.maxBatch {
		chunk := pairs[start:min(start+v.maxBatch, len(pairs))]
		out := logits[start : start+len(chunk)]
		g.Go(func() error { return v.predict(gctx, chunk, out) })
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return remote.Decide(batch, pairs, logits), nil
}

func (v *Verifier) predict(ctx context.Context, pairs []remote.TextPair, out [][3]float64) error {
	req := predictRequest{RawScores: true, Truncate: true, TruncationDirection: "Right"}
	for _, p := range pairs {
		// The passage is the premise (the first sequence), the claim the
		// hypothesis: the order the onnx and triton backends encode, so a
		// model gives the same verdict through every backend.
		req.Inputs = append(req.Inputs, [2]string{p.PassageText, p.ClaimText})
	}
	var resp [][]prediction
	if err := v.c.PostJSON(ctx, "/predict", req, &resp); err != nil {
		return err
	}
	if len(resp) != len(pairs) {
		return fmt.Errorf("POST /predict: %w: %d predictions for %d pairs", remote.ErrBadResponse, len(resp), len(pairs))
	}
	for i, preds := range resp {
		var seen [3]bool
		for _, p := range preds {
			cls, ok := v.class[p.Label]
			if !ok || p.Score == nil || seen[cls] {
				return fmt.Errorf("POST /predict: %w: pair %d: label %q is unknown, repeated or without a score (want one score for each of the model's labels)", remote.ErrBadResponse, i, p.Label)
			}
			seen[cls] = true
			out[i][cls] = *p.Score
		}
		if !seen[0] || !seen[1] || !seen[2] {
			return fmt.Errorf("POST /predict: %w: pair %d: %d labels, want the model's 3", remote.ErrBadResponse, i, len(preds))
		}
	}
	return nil
}
