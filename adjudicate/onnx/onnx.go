// Package onnx is the GPU-batchable verifier: an NLI cross-encoder exported
// to ONNX (model.onnx, tokenizer.json, config.json with id2label), run by ONNX
// Runtime in-process on CPU or CUDA through yalue/onnxruntime_go, with
// (claim, passage) pairs tokenised in pure Go by sugarme/tokenizer.
//
// Labels: entailment → supported, contradiction → unsupported, neutral →
// insufficient (our own names and FEVER's are accepted too, in any case); a
// label set that does not map onto all three is an error.
//
// Each claim is paired with each retrieved passage (the passage truncated
// first to the model's maximum length). Pairs are grouped into length
// buckets (16, 32, 64, ... tokens) and padded to their bucket, so a pair's
// logits depend only on the pair, never on the batch it shared. The
// deciding passage is the one with the strongest evidence either way —
// the largest of p(entailment) and p(contradiction) — and its raw logits
// become the claim's (temperature scaling comes later). A claim without
// passages is scored against an empty passage.
//
// ONNX Runtime's environment is process-wide; the package initialises it
// once, from the first library path it is given.
package onnx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/text/unicode/norm"
)

// ErrNoRuntime is returned when the ONNX Runtime library cannot be loaded.
var ErrNoRuntime = errors.New("ONNX Runtime library not available")

// DefaultMaxBatch is the most pairs in one ONNX Runtime call.
const DefaultMaxBatch = 32

var (
	envOnce sync.Once
	envErr  error
)

func initRuntime(lib string) error {
	envOnce.Do(func() {
		if lib == "" {
			lib = os.Getenv("ORT_LIB")
		}
		if lib == "" {
			envErr = fmt.Errorf("%w: set ORT_LIB or --ort-lib to libonnxruntime.so (make ort fetches one)", ErrNoRuntime)
			return
		}
		if _, err := os.Stat(lib); err != nil {
			envErr = fmt.Errorf("%w: %v", ErrNoRuntime, err)
			return
		}
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(); err != nil {
			envErr = fmt.Errorf("%w: %v", ErrNoRuntime, err)
		}
	})
	return envErr
}

// Verifier runs an ONNX NLI model.
type Verifier struct {
	session      *ort.DynamicAdvancedSession
	tok          *tokenizer.Tokenizer
	tokMu        sync.Mutex // the tokenizer keeps caches
	stripAccents bool
	outIndex     [3]int // our class → the model's output column
	maxLen       int
	maxBatch     int
	version      string
}

// Backend describes the onnx verifier for the registry.
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "onnx",
		Help: "NLI cross-encoder in ONNX format (--model DIR), ONNX Runtime on --device cpu or cuda",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			var o Options
			fs.StringVar(&o.Model, "model", "", "onnx: model folder (model.onnx, tokenizer.json, config.json)")
			fs.StringVar(&o.Device, "device", "cpu", "onnx: cpu or cuda")
			fs.StringVar(&o.Runtime, "ort-lib", "", "onnx: path of libonnxruntime.so (default $ORT_LIB; make ort fetches one)")
			return func(adjudicate.Env) (adjudicate.Verifier, error) { return New(o) }
		},
	}
}

// Options configure the onnx backend.
type Options struct {
	Model   string // model folder
	Device  string // cpu (default) or cuda
	Runtime string // path of libonnxruntime.so ("" = $ORT_LIB)
}

// New loads a model folder.
func New(opts Options) (adjudicate.Verifier, error) {
	if opts.Model == "" {
		return nil, errors.New("onnx verifier: --model DIR is required (model.onnx, tokenizer.json, config.json)")
	}
	if err := initRuntime(opts.Runtime); err != nil {
		return nil, err
	}
	cfgBytes, err := os.ReadFile(filepath.Join(opts.Model, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("onnx verifier: %w", err)
	}
	var cfg struct {
		ID2Label       map[string]string `json:"id2label"`
		MaxPositionEmb int               `json:"max_position_embeddings"`
	}
	if err := json.Unmarshal(cfgBytes, &cfg); err != nil {
		return nil, fmt.Errorf("onnx verifier: config.json: %w", err)
	}
	v := &Verifier{maxBatch: DefaultMaxBatch, maxLen: 512}
	if cfg.MaxPositionEmb > 0 && cfg.MaxPositionEmb < v.maxLen {
		v.maxLen = cfg.MaxPositionEmb
	}
	if v.outIndex, err = MapLabels(cfg.ID2Label); err != nil {
		return nil, fmt.Errorf("onnx verifier: %s/config.json: %w", opts.Model, err)
	}
	tokPath := filepath.Join(opts.Model, "tokenizer.json")
	if v.tok, err = pretrained.FromFile(tokPath); err != nil {
		return nil, fmt.Errorf("onnx verifier: load %s: %w", tokPath, err)
	}
	if v.stripAccents, err = needsAccentStripping(tokPath); err != nil {
		return nil, err
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnx verifier: %w", err)
	}
	defer so.Destroy()
	switch opts.Device {
	case "", "cpu":
	case "cuda":
		cuda, err := ort.NewCUDAProviderOptions()
		if err != nil {
			return nil, fmt.Errorf("onnx verifier: CUDA execution provider unavailable (its libraries must match ONNX Runtime's version): %w", err)
		}
		defer cuda.Destroy()
		if err := so.AppendExecutionProviderCUDA(cuda); err != nil {
			return nil, fmt.Errorf("onnx verifier: CUDA execution provider unavailable (its libraries must match ONNX Runtime's version): %w", err)
		}
	default:
		return nil, fmt.Errorf("onnx verifier: --device %q is not cpu or cuda", opts.Device)
	}
	modelPath := filepath.Join(opts.Model, "model.onnx")
	if v.session, err = ort.NewDynamicAdvancedSession(modelPath, []string{"input_ids", "attention_mask", "token_type_ids"}, []string{"logits"}, so); err != nil {
		return nil, fmt.Errorf("onnx verifier: load %s: %w", modelPath, err)
	}
	h := sha256.New()
	for _, f := range []string{"model.onnx", "tokenizer.json", "config.json"} {
		b, err := os.ReadFile(filepath.Join(opts.Model, f))
		if err != nil {
			return nil, err
		}
		h.Write(b)
	}
	v.version = "onnx/" + hex.EncodeToString(h.Sum(nil))[:12]
	return v, nil
}

// MapLabels maps a model's id2label onto our three classes: the result
// gives, for supported, unsupported and insufficient, the model's output
// column.
func MapLabels(id2label map[string]string) ([3]int, error) {
	out := [3]int{-1, -1, -1}
	for k, name := range id2label {
		var idx int
		if _, err := fmt.Sscanf(k, "%d", &idx); err != nil {
			return out, fmt.Errorf("id2label key %q is not an integer", k)
		}
		cls := -1
		switch strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(name, "_", " "))), " ") {
		case "entailment", "entails", "supported", "supports":
			cls = adjudicate.Supported
		case "contradiction", "contradicts", "unsupported", "refutes", "refuted":
			cls = adjudicate.Unsupported
		case "neutral", "insufficient", "not enough info", "nei":
			cls = adjudicate.Insufficient
		}
		if cls < 0 || out[cls] >= 0 {
			return out, fmt.Errorf("cannot map labels %v onto supported/unsupported/insufficient (entailment/contradiction/neutral)", id2label)
		}
		out[cls] = idx
	}
	if len(id2label) != 3 || out[0] < 0 || out[1] < 0 || out[2] < 0 {
		return out, fmt.Errorf("cannot map labels %v onto supported/unsupported/insufficient (entailment/contradiction/neutral)", id2label)
	}
	return out, nil
}

// needsAccentStripping: Hugging Face's BertNormalizer strips accents when
// strip_accents is true, or null and lowercase is true; sugarme/tokenizer
// reads null as false, so we strip them ourselves then.
func needsAccentStripping(path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var t struct {
		Normalizer *struct {
			Type         string `json:"type"`
			Lowercase    *bool  `json:"lowercase"`
			StripAccents *bool  `json:"strip_accents"`
		} `json:"normalizer"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return false, fmt.Errorf("onnx verifier: %s: %w", path, err)
	}
	n := t.Normalizer
	if n == nil || n.Type != "BertNormalizer" {
		return false, nil
	}
	if n.StripAccents != nil {
		return *n.StripAccents, nil
	}
	return n.Lowercase == nil || *n.Lowercase, nil
}

func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Version identifies the model files, for the verdict cache.
func (v *Verifier) Version() string { return v.version }

// PreferredBatchSize is the number of claims per Verify call.
func (v *Verifier) PreferredBatchSize() int { return v.maxBatch }

// Close releases the session.
func (v *Verifier) Close() error { return v.session.Destroy() }

type encoded struct {
	claim, passage int // indexes in the batch
	ids, types     []int64
}

// encode tokenises a (claim, passage) pair, truncating the passage first —
// to the longest prefix of its words that fits — and the claim only when it
// alone is too long. (sugarme/tokenizer's own truncation ignores the special
// tokens and calls log.Fatal when a sequence is too short, so it is never
// switched on.)
func (v *Verifier) encode(claim, passage string) ([]int64, []int64, error) {
	if v.stripAccents {
		claim, passage = stripAccents(claim), stripAccents(passage)
	}
	// Every word gives at least one token, so no more than maxLen words of
	// either text can be in the result: drop the rest before tokenising.
	bound := func(s string) string {
		if w := strings.Fields(s); len(w) > v.maxLen {
			return strings.Join(w[:v.maxLen], " ")
		}
		return s
	}
	claim, passage = bound(claim), bound(passage)
	v.tokMu.Lock()
	defer v.tokMu.Unlock()
	enc, err := v.tok.EncodePair(claim, passage, true)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenize: %w", err)
	}
	if len(enc.Ids) > v.maxLen {
		fits := func(c, p string) (*tokenizer.Encoding, bool) {
			e, err := v.tok.EncodePair(c, p, true)
			return e, err == nil && len(e.Ids) <= v.maxLen
		}
		// longest keeps the most words of s (0..len) for which try fits.
		longest := func(words []string, try func(string) (*tokenizer.Encoding, bool)) *tokenizer.Encoding {
			var best *tokenizer.Encoding
			lo, hi := 0, len(words)
			for lo <= hi {
				mid := (lo + hi) / 2
				if e, ok := try(strings.Join(words[:mid], " ")); ok {
					best, lo = e, mid+1
				} else {
					hi = mid - 1
				}
			}
			return best
		}
		// Every word gives at least one token: no more than maxLen words can fit.
		words := func(s string) []string {
			w := strings.Fields(s)
			return w[:min(len(w), v.maxLen)]
		}
		if e, ok := fits(claim, ""); ok {
			enc = longest(words(passage), func(p string) (*tokenizer.Encoding, bool) { return fits(claim, p) })
			if enc == nil {
				enc = e
			}
		} else {
			enc = longest(words(claim), func(c string) (*tokenizer.Encoding, bool) { return fits(c, "") })
			if enc == nil {
				return nil, nil, fmt.Errorf("tokenize: not even one word of the claim fits in %d tokens", v.maxLen)
			}
		}
	}
	ids, types := make([]int64, len(enc.Ids)), make([]int64, len(enc.Ids))
	for i := range enc.Ids {
		ids[i], types[i] = int64(enc.Ids[i]), int64(enc.TypeIds[i])
	}
	return ids, types, nil
}

func bucket(n int) int {
	b := 16
	for b < n {
		b *= 2
	}
	return b
}

// Verify scores every (claim, passage) pair and picks each claim's
// deciding passage.
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var pairs []encoded
	for ci, p := range batch {
		passages := p.Passages
		if len(passages) == 0 {
			passages = []adjudicate.Passage{{}}
		}
		for pi, ps := range passages {
			ids, types, err := v.encode(p.Claim, ps.Text)
			if err != nil {
				return nil, fmt.Errorf("claim %s: %w", p.ClaimID, err)
			}
			pairs = append(pairs, encoded{claim: ci, passage: pi, ids: ids, types: types})
		}
	}
	// Length buckets, each run in chunks of maxBatch.
	order := make([]int, len(pairs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bucket(len(pairs[order[a]].ids)) < bucket(len(pairs[order[b]].ids)) })
	logits := make([][3]float64, len(pairs))
	for start := 0; start < len(order); {
		w := bucket(len(pairs[order[start]].ids))
		end := start
		for end < len(order) && end-start < v.maxBatch && bucket(len(pairs[order[end]].ids)) == w {
			end++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := v.run(pairs, order[start:end], w, logits); err != nil {
			return nil, err
		}
		start = end
	}
	out := make([]adjudicate.Verdict, len(batch))
	for i := range out {
		out[i].Passage = -1
	}
	best := make([]float64, len(batch))
	for i := range best {
		best[i] = -1
	}
	for i, e := range pairs {
		z := logits[i]
		p := softmax(z)
		strength := math.Max(p[adjudicate.Supported], p[adjudicate.Unsupported])
		if strength > best[e.claim] {
			best[e.claim] = strength
			out[e.claim].Logits = z
			if len(batch[e.claim].Passages) > 0 {
				out[e.claim].Passage = e.passage
			}
		}
	}
	for i, p := range batch {
		out[i].Rationale = rationale(p, out[i])
	}
	return out, nil
}

func (v *Verifier) run(pairs []encoded, idx []int, width int, logits [][3]float64) error {
	n := len(idx)
	ids, mask, types := make([]int64, n*width), make([]int64, n*width), make([]int64, n*width)
	for r, i := range idx {
		e := pairs[i]
		copy(ids[r*width:], e.ids)
		copy(types[r*width:], e.types)
		for c := range e.ids {
			mask[r*width+c] = 1
		}
	}
	shape := ort.NewShape(int64(n), int64(width))
	var tensors []ort.Value
	defer func() {
		for _, t := range tensors {
			t.Destroy()
		}
	}()
	for _, data := range [][]int64{ids, mask, types} {
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return fmt.Errorf("onnx input: %w", err)
		}
		tensors = append(tensors, t)
	}
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(n), 3))
	if err != nil {
		return fmt.Errorf("onnx output: %w", err)
	}
	defer out.Destroy()
	if err := v.session.Run(tensors, []ort.Value{out}); err != nil {
		return adjudicate.Transient(fmt.Errorf("onnx run: %w", err))
	}
	got := out.GetData()
	for r, i := range idx {
		for k := 0; k < 3; k++ {
			logits[i][k] = float64(got[r*3+v.outIndex[k]])
		}
	}
	return nil
}

func softmax(z [3]float64) [3]float64 {
	m := math.Max(z[0], math.Max(z[1], z[2]))
	var p [3]float64
	s := 0.0
	for k := range z {
		p[k] = math.Exp(z[k] - m)
		s += p[k]
	}
	for k := range p {
		p[k] /= s
	}
	return p
}

func rationale(p adjudicate.Pair, v adjudicate.Verdict) string {
	pr := softmax(v.Logits)
	if v.Passage < 0 {
		return fmt.Sprintf("no evidence retrieved; model on the claim alone: entailment %.2f, contradiction %.2f, neutral %.2f", pr[0], pr[1], pr[2])
	}
	ev := p.Passages[v.Passage]
	loc := ev.DocID
	if ev.SpanID != "" {
		loc += "/" + ev.SpanID
	}
	return fmt.Sprintf("%s [%d,%d): entailment %.2f, contradiction %.2f, neutral %.2f (strongest of %d passages)",
		loc, ev.Start, ev.End, pr[0], pr[1], pr[2], len(p.Passages))
}
