// Package triton is the verifier for an NLI cross-encoder served by
// NVIDIA Triton Inference Server — or any server of the KServe v2
// inference protocol (REST/JSON): KServe, Seldon MLServer, OpenVINO Model
// Server.
//
// The client tokenises each (claim, passage) pair with the onnx backend's
// own tokenizer (the same model folder: tokenizer.json, config.json), sends
// input_ids, attention_mask and token_type_ids as INT64 (or INT32) tensors
// of length-bucketed, padded rows, and reads the logits output; the
// deciding passage is picked as the onnx backend picks it, so a model
// served by Triton gives the verdicts it gives in-process. At start it
// reads the model's metadata and readiness: a model whose inputs, data
// types or shapes differ from what the client sends is an error before any
// claim is sent.
//
// Protocol: https://github.com/kserve/open-inference-protocol
// (specification/protocol/inference_rest.md).
package triton

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/onnx"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/userfile"
	"golang.org/x/sync/errgroup"
)

// DefaultMaxBatch is the most pairs in one infer request.
const DefaultMaxBatch = 32

// ErrModelMismatch is a served model that does not take what the client
// sends or does not give what it reads.
var ErrModelMismatch = errors.New("served model does not match")

// Options configure the triton backend.
type Options struct {
	Client       remote.Options
	Model        string // the model folder (tokenizer.json, config.json)
	ModelName    string // the model's name on the server
	ModelVersion string // "" lets the server choose
	MaxBatch     int    // pairs per infer request
}

// Backend describes the triton verifier for the registry.
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "triton",
		Help: "NLI cross-encoder served by Triton or another KServe v2 server (--endpoint URL, --model DIR for its tokenizer, --model-name)",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			co := remote.Flags(fs)
			o := Options{}
			fs.StringVar(&o.Model, "model", "", "triton: the model folder of --verifier onnx, for its tokenizer.json and config.json")
			fs.StringVar(&o.ModelName, "model-name", "nli", "triton: the model's name on the server")
			fs.StringVar(&o.ModelVersion, "model-version", "", "triton: the model version (default: the server's choice)")
			fs.IntVar(&o.MaxBatch, "max-batch", DefaultMaxBatch, "triton, tei: most (claim, passage) pairs in one request")
			return func(adjudicate.Env) (adjudicate.Verifier, error) {
				o.Client = *co
				return New(context.Background(), o)
			}
		},
	}
}

// Verifier sends pairs to a served model.
type Verifier struct {
	c        *remote.Client
	tok      *onnx.Tokenizer
	infer    string // the infer path
	inputs   []input
	width    int    // fixed sequence length, 0 when dynamic
	outIndex [3]int // our class → the model's logits column
	cols     int
	maxBatch int
	version  string
}

type input struct {
	name, datatype string
}

// New loads the tokenizer, reads the served model's metadata, checks it
// and makes the verifier.
func New(ctx context.Context, o Options) (*Verifier, error) {
	if o.Model == "" {
		return nil, errors.New("triton verifier: --model DIR is required (the model folder's tokenizer.json and config.json; the client tokenises)")
	}
	if o.ModelName == "" {
		return nil, errors.New("triton verifier: --model-name is empty")
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	c, err := remote.New(o.Client)
	if err != nil {
		return nil, fmt.Errorf("triton verifier: %w", err)
	}
	v := &Verifier{c: c, maxBatch: o.MaxBatch}
	if v.tok, err = onnx.LoadTokenizer(o.Model); err != nil {
		return nil, fmt.Errorf("triton verifier: %w", err)
	}
	var cfg struct {
		ID2Label map[string]string `json:"id2label"`
	}
	cfgPath := filepath.Join(o.Model, "config.json")
	b, err := userfile.ReadFile(cfgPath, userfile.MaxSmall)
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("triton verifier: %s: %w", cfgPath, err)
	}
	if v.outIndex, err = onnx.MapLabels(cfg.ID2Label); err != nil {
		return nil, fmt.Errorf("triton verifier: %s: %w", cfgPath, err)
	}
	model := "/v2/models/" + url.PathEscape(o.ModelName)
	if o.ModelVersion != "" {
		model += "/versions/" + url.PathEscape(o.ModelVersion)
	}
	var md metadata
	if err := c.GetJSON(ctx, model, &md); err != nil {
		return nil, fmt.Errorf("triton verifier: model metadata: %w", err)
	}
	if err := v.plan(md); err != nil {
		return nil, fmt.Errorf("triton verifier: model %q at %s: %w", o.ModelName, c.Endpoint(), err)
	}
	if err := c.GetJSON(ctx, model+"/ready", nil); err != nil {
		return nil, fmt.Errorf("triton verifier: model %q is not ready: %w", o.ModelName, err)
	}
	v.infer = model + "/infer"
	h := sha256.New()
	for _, f := range []string{"tokenizer.json", "config.json"} {
		b, err := userfile.ReadFile(filepath.Join(o.Model, f), userfile.MaxLarge)
		if err != nil {
			return nil, fmt.Errorf("triton verifier: %w", err)
		}
		h.Write(b)
	}
	ver := o.ModelVersion
	if ver == "" {
		ver = strings.Join(md.Versions, ",")
	}
	v.version = fmt.Sprintf("triton/%s/%s@%s/%s/tokenizer:%s", c.Endpoint(), o.ModelName, ver, md.Platform, hex.EncodeToString(h.Sum(nil))[:12])
	return v, nil
}

type tensorMeta struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

type metadata struct {
	Name     string       `json:"name"`
	Versions []string     `json:"versions"`
	Platform string       `json:"platform"`
	Inputs   []tensorMeta `json:"inputs"`
	Outputs  []tensorMeta `json:"outputs"`
}

// plan checks the metadata against what the client sends and reads, and
// records which inputs to send in which data type.
func (v *Verifier) plan(md metadata) error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	seen := map[string]bool{}
	for _, in := range md.Inputs {
		seen[in.Name] = true
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
		default:
			bad("input %s %v: the client sends only input_ids, attention_mask and token_type_ids", in.Name, in.Shape)
			continue
		}
		if in.Datatype != "INT64" && in.Datatype != "INT32" {
			bad("input %s has data type %s, want INT64 or INT32", in.Name, in.Datatype)
		}
		if len(in.Shape) != 2 {
			bad("input %s has shape %v, want [batch, sequence] ([-1, -1])", in.Name, in.Shape)
		} else {
			if in.Shape[0] != -1 {
				bad("input %s has a fixed batch dimension %d, want -1 (set max_batch_size > 0 in config.pbtxt, or dynamic axes in the export)", in.Name, in.Shape[0])
			}
			if w := int(in.Shape[1]); w != -1 {
				if w < v.tok.MaxLen() {
					bad("input %s takes sequences of %d tokens, shorter than config.json's %d", in.Name, w, v.tok.MaxLen())
				} else if v.width != 0 && v.width != w {
					bad("inputs take sequences of different fixed lengths (%d and %d)", v.width, w)
				} else {
					v.width = w
				}
			}
		}
		v.inputs = append(v.inputs, input{name: in.Name, datatype: in.Datatype})
	}
	for _, need := range []string{"input_ids", "attention_mask"} {
		if !seen[need] {
			bad("no input %s", need)
		}
	}
	var logits *tensorMeta
	for i := range md.Outputs {
		if md.Outputs[i].Name == "logits" {
			logits = &md.Outputs[i]
		}
	}
	switch {
	case logits == nil:
		names := []string{}
		for _, o := range md.Outputs {
			names = append(names, o.Name)
		}
		bad("no output logits (outputs: %s)", strings.Join(names, ", "))
	case logits.Datatype != "FP32" && logits.Datatype != "FP64":
		bad("output logits has data type %s, want FP32 or FP64", logits.Datatype)
	case len(logits.Shape) != 2 || (logits.Shape[1] != -1 && logits.Shape[1] != 3):
		bad("output logits has shape %v, want [-1, 3] (three labels, as config.json's id2label)", logits.Shape)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrModelMismatch, strings.Join(problems, "; "))
	}
	v.cols = 3
	return nil
}

// Version names the server, the model and the tokenizer, for the verdict
// cache: another server or model never reuses verdicts.
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

func bucket(n int) int {
	b := 16
	for b < n {
		b *= 2
	}
	return b
}

type encoded struct {
	ids, types []int64
}

// Strength implements adjudicate.PassageScorer: remote.Decide's rule.
func (v *Verifier) Strength(p [3]float64) float64 { return adjudicate.EvidenceEitherWay(p) }

// Verify scores every (claim, passage) pair: rows of one length bucket go
// together, at most --max-batch to a request, requests in parallel (up to
// --max-inflight across the process).
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pairs := remote.TextPairs(batch)
	enc := make([]encoded, len(pairs))
	for i, p := range pairs {
		ids, types, err := v.tok.EncodePair(p.ClaimText, p.PassageText)
		if err != nil {
			return nil, fmt.Errorf("claim %s: %w", batch[p.Claim].ClaimID, err)
		}
		enc[i] = encoded{ids: ids, types: types}
	}
	width := func(i int) int {
		if v.width > 0 {
			return v.width
		}
		return bucket(len(enc[i].ids))
	}
	order := make([]int, len(enc))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return width(order[a]) < width(order[b]) })
	logits := make([][3]float64, len(enc))
	g, gctx := errgroup.WithContext(ctx)
	for start := 0; start < len(order); {
		w := width(order[start])
		end := start
		for end < len(order) && end-start < v.maxBatch && width(order[end]) == w {
			end++
		}
		idx := order[start:end]
		g.Go(func() error { return v.run(gctx, enc, idx, w, logits) })
		start = end
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return remote.Decide(batch, pairs, logits), nil
}

type inferTensor struct {
	Name     string  `json:"name"`
	Shape    []int64 `json:"shape"`
	Datatype string  `json:"datatype"`
	Data     []int64 `json:"data"`
}

type inferRequest struct {
	Inputs  []inferTensor       `json:"inputs"`
	Outputs []map[string]string `json:"outputs"`
}

type inferResponse struct {
	ModelName string `json:"model_name"`
	Outputs   []struct {
		Name     string    `json:"name"`
		Datatype string    `json:"datatype"`
		Shape    []int64   `json:"shape"`
		Data     []float64 `json:"data"`
	} `json:"outputs"`
}

func (v *Verifier) run(ctx context.Context, enc []encoded, idx []int, width int, logits [][3]float64) error {
	n := len(idx)
	ids, mask, types := make([]int64, n*width), make([]int64, n*width), make([]int64, n*width)
	for r, i := range idx {
		e := enc[i]
		copy(ids[r*width:], e.ids)
		copy(types[r*width:], e.types)
		for c := range e.ids {
			mask[r*width+c] = 1
		}
	}
	data := map[string][]int64{"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
	req := inferRequest{Outputs: []map[string]string{{"name": "logits"}}}
	for _, in := range v.inputs {
		req.Inputs = append(req.Inputs, inferTensor{Name: in.name, Shape: []int64{int64(n), int64(width)}, Datatype: in.datatype, Data: data[in.name]})
	}
	var resp inferResponse
	if err := v.c.PostJSON(ctx, v.infer, req, &resp); err != nil {
		return err
	}
	for _, out := range resp.Outputs {
		if out.Name != "logits" {
			continue
		}
		if !slices.Equal(out.Shape, []int64{int64(n), int64(v.cols)}) || len(out.Data) != n*v.cols {
			return fmt.Errorf("infer %s: %w: output logits has shape %v with %d values, want [%d %d] for the %d rows sent",
				v.infer, remote.ErrBadResponse, out.Shape, len(out.Data), n, v.cols, n)
		}
		for r, i := range idx {
			for k := 0; k < 3; k++ {
				z := out.Data[r*v.cols+v.outIndex[k]]
				if out.Datatype != "FP64" {
					// FP32 printed in JSON: back to the float32 the model
					// computed, so verdicts equal the onnx backend's.
					z = float64(float32(z))
				}
				logits[i][k] = z
			}
		}
		return nil
	}
	return fmt.Errorf("infer %s: %w: no output logits in the response", v.infer, remote.ErrBadResponse)
}
