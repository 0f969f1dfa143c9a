// Package onnx is the GPU-batchable verifier: an NLI cross-encoder exported
// to ONNX (model.onnx, tokenizer.json, config.json with id2label), run by ONNX
// Runtime in-process on CPU or CUDA through yalue/onnxruntime_go, with
// (passage, claim) pairs tokenised in pure Go by adjudicate/onnx/tokenizer,
// which matches Hugging Face's ids for WordPiece, byte-level BPE and Unigram
// tokenizers.
//
// The model is checked at load: its inputs must be input_ids and
// attention_mask, and optionally token_type_ids (int32 or int64, [batch,
// sequence]); its output the one named logits, or its only output ([batch,
// labels], float32, float16 or float64). Anything else is refused with the
// model's inputs and outputs named — never discovered batch by batch.
//
// Labels: entailment → supported, contradiction → unsupported, neutral →
// insufficient (our own names and FEVER's are accepted too, in any case).
// Two-label checkers (supported/consistent/entailment vs not) map by
// LabelRule: the model cannot tell refuted from unverifiable, so the
// not-supported logit goes to insufficient (or to unsupported with
// LabelRule "unsupported") and the other class gets that logit minus
// BinaryGap. Such runs are read by the binary view of the metrics
// (supported vs not).
//
// Each claim is paired with each retrieved passage: the passage is the
// premise (first sequence) and the claim the hypothesis, and the passage is
// truncated first to the model's maximum length. Pairs are tokenised on all
// cores in waves, the next wave while the current one runs, grouped by
// length into buckets (multiples of 16 tokens) and padded to their bucket,
// so a pair's logits depend only on the pair, never on the batch it shared.
// Through adjudicate.Schedule a call's tokenising is done earlier still
// (Verifier.Prepare): while the call before it runs the model.
// The deciding passage is the one with the strongest evidence either way —
// the largest of p(supported) and p(unsupported); for a two-label model, the
// largest p(supported) — and its raw logits become the claim's. A claim
// without passages is scored against an empty passage.
//
// ONNX Runtime's environment is process-wide; the package initialises it
// once, from the first library path it is given.
package onnx

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/userfile"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/onnx/tokenizer"
	ort "github.com/yalue/onnxruntime_go"
)

// ErrNoRuntime is returned when the ONNX Runtime library cannot be loaded.
var ErrNoRuntime = errors.New("ONNX Runtime library not available")

// ErrModel is returned when a model folder does not fit the backend: its
// inputs, outputs or labels.
var ErrModel = errors.New("model does not fit")

// DefaultMaxBatch is the most pairs in one ONNX Runtime call.
const DefaultMaxBatch = 32

// BinaryGap is how far below the not-supported logit a two-label model's
// unused class is put: finite (so calibration and NLL stay defined), and
// far enough that its probability is below 1e-8.
const BinaryGap = 20.0

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
		// ONNX Runtime's telemetry (the 1DS SDK of official builds) writes
		// mat-debug-<pid>.log and .ses into $TMPDIR when the environment
		// starts, before it can be turned off: it starts with a private
		// $TMPDIR that is removed at once, and telemetry off, so a run
		// leaves nothing behind outside --out.
		envErr = initWithoutLeftovers()
	})
	return envErr
}

// Verifier runs an ONNX NLI model.
type Verifier struct {
	session  *ort.DynamicAdvancedSession
	tok      *tokenizer.Tokenizer
	feeds    []feed // the session's inputs, in order
	int32IDs bool
	outType  ort.TensorElementDataType
	labels   labelMap
	maxLen   int
	maxBatch int
	version  string
	// slots holds one token per model run allowed at once (Options.Runs):
	// a call's runs go to goroutines, each run on one core. nil: runs one
	// after the other on the session's own threads.
	slots chan struct{}
	runMu sync.Mutex // serialises onRun
	// onRun, when set (by tests), sees each model run's rows and width: a
	// model whose rows are not independent of their batch (dynamic
	// quantisation) must get the same runs whatever the call path.
	onRun func(rows []encoded, idx []int, width int)
}

type feed int

const (
	feedIDs feed = iota
	feedMask
	feedTypes
)

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
			fs.IntVar(&o.MaxLength, "max-length", 0, "onnx: most tokens per (passage, claim) pair (0: tokenizer.json's truncation max_length, else the model's max_position_embeddings, at most 512)")
			fs.StringVar(&o.LabelRule, "label-rule", string(label.Insufficient), "onnx: a two-label model's not-supported class becomes insufficient or unsupported")
			fs.IntVar(&o.Runs, "ort-runs", 0, "onnx: batches run at once on --device cpu, each on one thread (0: one per CPU Go may use, GOMAXPROCS; 1: one at a time on all cores); each holds its own activations (tens of MB); cuda takes 0 or 1")
			return func(adjudicate.Env) (adjudicate.Verifier, error) { return New(o) }
		},
	}
}

// Options configure the onnx backend.
type Options struct {
	Model     string // model folder
	Device    string // cpu (default) or cuda
	Runtime   string // path of libonnxruntime.so ("" = $ORT_LIB)
	MaxLength int    // tokens per pair (0: tokenizer.json's truncation length, else config.json's, at most 512)
	LabelRule string // two-label models: "insufficient" (default) or "unsupported"
	// Runs is how many model runs go at once on the CPU, each on one
	// thread of ONNX Runtime (0: one per CPU Go may use, GOMAXPROCS). 1 runs them one after the
	// other, each on all cores. A run is a batch of pairs: which pairs share
	// a run never depends on Runs, so neither do the logits. On cuda runs
	// go one at a time.
	Runs int
}

// MaxRuns bounds Options.Runs.
const MaxRuns = 256

// New loads a model folder.
func New(opts Options) (adjudicate.Verifier, error) {
	if opts.Model == "" {
		return nil, errors.New("onnx verifier: --model DIR is required (model.onnx, tokenizer.json, config.json)")
	}
	switch opts.Device {
	case "", "cpu", "cuda":
	default:
		return nil, fmt.Errorf("onnx verifier: --device %q is not cpu or cuda", opts.Device)
	}
	if opts.MaxLength < 0 {
		return nil, fmt.Errorf("onnx verifier: --max-length %d is negative", opts.MaxLength)
	}
	if opts.Runs < 0 || opts.Runs > MaxRuns {
		return nil, fmt.Errorf("onnx verifier: --ort-runs %d is outside 0..%d", opts.Runs, MaxRuns)
	}
	if opts.Device == "cuda" && opts.Runs > 1 {
		return nil, fmt.Errorf("onnx verifier: --ort-runs %d applies to --device cpu: on cuda batches run one at a time", opts.Runs)
	}
	if err := initRuntime(opts.Runtime); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(opts.Model, "config.json")
	cfgBytes, err := userfile.ReadFile(cfgPath, userfile.MaxSmall)
	if err != nil {
		return nil, fmt.Errorf("onnx verifier: %w", err)
	}
	var cfg struct {
		ID2Label       map[string]string `json:"id2label"`
		MaxPositionEmb int               `json:"max_position_embeddings"`
	}
	if err := json.Unmarshal(cfgBytes, &cfg); err != nil {
		return nil, fmt.Errorf("onnx verifier: %s: %w", cfgPath, err)
	}
	v := &Verifier{maxBatch: DefaultMaxBatch, maxLen: 512}
	if cfg.MaxPositionEmb > 0 && cfg.MaxPositionEmb < v.maxLen {
		v.maxLen = cfg.MaxPositionEmb
	}
	if opts.MaxLength > 0 {
		v.maxLen = opts.MaxLength
	}
	if v.labels, err = mapLabels(cfg.ID2Label, opts.LabelRule); err != nil {
		return nil, fmt.Errorf("onnx verifier: %s: %w", cfgPath, err)
	}
	tokPath := filepath.Join(opts.Model, "tokenizer.json")
	if v.tok, err = tokenizer.Load(tokPath); err != nil {
		return nil, fmt.Errorf("onnx verifier: %w", err)
	}
	// A tokenizer that declares its truncation length (the length the model
	// was trained at) sets the default, below the position limit.
	if n := v.tok.MaxLength(); opts.MaxLength == 0 && n > 0 && n < v.maxLen {
		v.maxLen = n
	}
	modelPath := filepath.Join(opts.Model, "model.onnx")
	inNames, outName, err := v.introspect(modelPath, len(cfg.ID2Label))
	if err != nil {
		return nil, err
	}
	if err := v.openSession(opts, modelPath, inNames, outName); err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, f := range []string{"model.onnx", "tokenizer.json", "config.json"} {
		if err := userfile.Copy(h, filepath.Join(opts.Model, f)); err != nil {
			v.session.Destroy()
			return nil, fmt.Errorf("onnx verifier: %w", err)
		}
	}
	// The maximum length and label rule change verdicts: they key the cache too.
	fmt.Fprintf(h, "\x00max=%d rule=%s", v.maxLen, v.labels.rule)
	v.version = "onnx/" + hex.EncodeToString(h.Sum(nil))[:12]
	return v, nil
}

// openSession loads the model into v.session: idle threads not spinning,
// and on the CPU the runs side by side (Options.Runs) each on one thread,
// or on cuda one run at a time on the GPU.
func (v *Verifier) openSession(opts Options, modelPath string, inNames []string, outName string) error {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("onnx verifier: %w", err)
	}
	defer so.Destroy()
	// Idle ONNX Runtime threads spin by default, taking cores the
	// tokenizer needs between runs.
	if err := so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return fmt.Errorf("onnx verifier: %w", err)
	}
	runs := opts.Runs
	if runs == 0 {
		runs = runtime.GOMAXPROCS(0)
	}
	if opts.Device == "cuda" {
		runs = 1
	}
	if runs > 1 {
		// One ONNX Runtime thread a run and runs side by side: measured
		// 1.3x the pairs/s of one run at a time on two threads (its
		// many small elementwise kernels leave the second thread idle),
		// and the same logits bit for bit (BENCHMARKS.md, issue 42).
		if err := so.SetIntraOpNumThreads(1); err != nil {
			return fmt.Errorf("onnx verifier: %w", err)
		}
		v.slots = make(chan struct{}, runs)
	}
	if opts.Device == "cuda" {
		cuda, err := ort.NewCUDAProviderOptions()
		if err != nil {
			return fmt.Errorf("onnx verifier: --device cuda: ONNX Runtime's CUDA execution provider is unavailable (make ort-cuda installs it with a matching runtime; it needs an NVIDIA GPU with the CUDA runtime, cuBLAS and cuDNN): %w", err)
		}
		defer cuda.Destroy()
		if err := so.AppendExecutionProviderCUDA(cuda); err != nil {
			return fmt.Errorf("onnx verifier: --device cuda: ONNX Runtime's CUDA execution provider is unavailable (make ort-cuda installs it with a matching runtime; it needs an NVIDIA GPU with the CUDA runtime, cuBLAS and cuDNN): %w", err)
		}
	}
	if v.session, err = ort.NewDynamicAdvancedSession(modelPath, inNames, []string{outName}, so); err != nil {
		return fmt.Errorf("onnx verifier: load %s: %w", modelPath, err)
	}
	return nil
}

func describe(infos []ort.InputOutputInfo) string {
	var parts []string
	for _, in := range infos {
		parts = append(parts, fmt.Sprintf("%s %s %v", in.Name, elemName(in.DataType), []int64(in.Dimensions)))
	}
	return strings.Join(parts, ", ")
}

func elemName(t ort.TensorElementDataType) string {
	switch t {
	case ort.TensorElementDataTypeInt64:
		return "int64"
	case ort.TensorElementDataTypeInt32:
		return "int32"
	case ort.TensorElementDataTypeFloat:
		return "float32"
	case ort.TensorElementDataTypeFloat16:
		return "float16"
	case ort.TensorElementDataTypeDouble:
		return "float64"
	}
	return fmt.Sprintf("type%d", int(t))
}

// introspect matches the graph's inputs and outputs to what the tokenizer
// gives and the labels config.json names.
func (v *Verifier) introspect(modelPath string, labels int) (inNames []string, outName string, err error) {
	if err := userfile.CheckRegular(modelPath); err != nil {
		return nil, "", fmt.Errorf("onnx verifier: %w", err) // a FIFO or /dev/zero would never load
	}
	ins, outs, err := ort.GetInputOutputInfo(modelPath)
	if err != nil {
		return nil, "", fmt.Errorf("onnx verifier: read %s: %w", modelPath, err)
	}
	const want = "input_ids and attention_mask, optionally token_type_ids (int32 or int64, [batch, sequence]), and an output named logits or a single output ([batch, labels], float)"
	fail := func(why string) error {
		return fmt.Errorf("onnx verifier: %w: %s: %s; its inputs are %s and its outputs %s; expected %s",
			ErrModel, modelPath, why, describe(ins), describe(outs), want)
	}
	seen := map[feed]bool{}
	var idType ort.TensorElementDataType
	for _, in := range ins {
		var f feed
		switch in.Name {
		case "input_ids":
			f = feedIDs
		case "attention_mask":
			f = feedMask
		case "token_type_ids":
			f = feedTypes
		default:
			return nil, "", fail(fmt.Sprintf("input %q is not one a text pair gives", in.Name))
		}
		if in.OrtValueType != ort.ONNXTypeTensor || len(in.Dimensions) != 2 {
			return nil, "", fail(fmt.Sprintf("input %s is not a rank-2 tensor", in.Name))
		}
		if in.DataType != ort.TensorElementDataTypeInt64 && in.DataType != ort.TensorElementDataTypeInt32 {
			return nil, "", fail(fmt.Sprintf("input %s is %s, not int32 or int64", in.Name, elemName(in.DataType)))
		}
		if len(seen) > 0 && in.DataType != idType {
			return nil, "", fail("the inputs mix int32 and int64")
		}
		idType = in.DataType
		seen[f] = true
		v.feeds = append(v.feeds, f)
		inNames = append(inNames, in.Name)
	}
	if !seen[feedIDs] || !seen[feedMask] {
		return nil, "", fail("input_ids or attention_mask is missing")
	}
	v.int32IDs = idType == ort.TensorElementDataTypeInt32
	var out *ort.InputOutputInfo
	for i := range outs {
		if outs[i].Name == "logits" {
			out = &outs[i]
		}
	}
	if out == nil && len(outs) == 1 {
		out = &outs[0]
	}
	if out == nil {
		return nil, "", fail("no output is named logits and there is more than one")
	}
	if out.OrtValueType != ort.ONNXTypeTensor || len(out.Dimensions) != 2 {
		return nil, "", fail(fmt.Sprintf("output %s is not a rank-2 tensor", out.Name))
	}
	if d := out.Dimensions[1]; d > 0 && int(d) != labels {
		return nil, "", fail(fmt.Sprintf("output %s has %d columns but config.json's id2label names %d labels", out.Name, d, labels))
	}
	switch out.DataType {
	case ort.TensorElementDataTypeFloat, ort.TensorElementDataTypeFloat16, ort.TensorElementDataTypeDouble:
	default:
		return nil, "", fail(fmt.Sprintf("output %s is %s, not a float", out.Name, elemName(out.DataType)))
	}
	v.outType = out.DataType
	return inNames, out.Name, nil
}

// labelMap turns a model's output row into our three logits.
type labelMap struct {
	n      int    // the model's labels: 2 or 3
	three  [3]int // n == 3: our class → the model's column
	pos    int    // n == 2: the supported column
	neg    int    //         and the other
	rule   string // n == 2: "insufficient" or "unsupported"
	binary bool
}

func (m labelMap) apply(row []float64) [3]float64 {
	if !m.binary {
		return [3]float64{row[m.three[0]], row[m.three[1]], row[m.three[2]]}
	}
	pos, neg := row[m.pos], row[m.neg]
	if m.rule == string(label.Unsupported) {
		return [3]float64{pos, neg, neg - BinaryGap}
	}
	return [3]float64{pos, neg - BinaryGap, neg}
}

func normLabel(name string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(name))), " ")
}

// MapLabels maps a three-label id2label onto our classes: the result gives,
// for supported, unsupported and insufficient, the model's output column.
func MapLabels(id2label map[string]string) ([3]int, error) {
	m, err := mapLabels(id2label, "")
	if err != nil {
		return [3]int{}, err
	}
	if m.binary {
		return [3]int{}, fmt.Errorf("id2label %v has two labels: MapLabels maps three", id2label)
	}
	return m.three, nil
}

func mapLabels(id2label map[string]string, rule string) (labelMap, error) {
	switch rule {
	case "", string(label.Insufficient):
		rule = string(label.Insufficient)
	case string(label.Unsupported):
	default:
		return labelMap{}, fmt.Errorf("label rule %q is not insufficient or unsupported", rule)
	}
	cols := map[string]int{}
	for k, name := range id2label {
		var idx int
		if _, err := fmt.Sscanf(k, "%d", &idx); err != nil || fmt.Sprint(idx) != k {
			return labelMap{}, fmt.Errorf("id2label key %q is not an integer", k)
		}
		if idx < 0 || idx >= len(id2label) {
			return labelMap{}, fmt.Errorf("id2label key %d is outside 0..%d", idx, len(id2label)-1)
		}
		cols[normLabel(name)] = idx
	}
	if len(cols) != len(id2label) {
		return labelMap{}, fmt.Errorf("id2label %v names a label twice", id2label)
	}
	find := func(names ...string) int {
		hit := -1
		for _, n := range names {
			if c, ok := cols[n]; ok {
				if hit >= 0 && hit != c {
					return -2
				}
				hit = c
			}
		}
		return hit
	}
	switch len(id2label) {
	case 3:
		m := labelMap{n: 3, rule: rule}
		// NLI's names, then ours and FEVER's (the label package's).
		m.three[adjudicate.Supported] = find(append([]string{"entailment", "entails"}, label.Supported.Aliases()...)...)
		m.three[adjudicate.Unsupported] = find(append([]string{"contradiction", "contradicts"}, label.Unsupported.Aliases()...)...)
		m.three[adjudicate.Insufficient] = find(append([]string{"neutral"}, label.Insufficient.Aliases()...)...)
		for _, c := range m.three {
			if c < 0 {
				return labelMap{}, fmt.Errorf("cannot map labels %v onto supported/unsupported/insufficient (entailment/contradiction/neutral)", id2label)
			}
		}
		return m, nil
	case 2:
		m := labelMap{n: 2, binary: true, rule: rule}
		m.pos = find(append(label.Supported.Aliases(), "entailment", "entails", "consistent", "factual", "faithful", "attributable", "grounded", "true", "yes", "correct")...)
		m.neg = find(append(label.Unsupported.Aliases(), "not entailment", "non entailment", "not entailed", "not supported", "inconsistent", "hallucinated",
			"hallucination", "not factual", "unfaithful", "not attributable", "ungrounded", "contradiction", "false", "no", "incorrect")...)
		if m.pos < 0 || m.neg < 0 || m.pos == m.neg {
			return labelMap{}, fmt.Errorf("cannot map two labels %v onto supported vs not (e.g. entailment / not_entailment, consistent / inconsistent, supported / unsupported)", id2label)
		}
		return m, nil
	}
	return labelMap{}, fmt.Errorf("cannot map %d labels %v: a model needs three (entailment/contradiction/neutral) or two (supported vs not)", len(id2label), id2label)
}

// Version identifies the model files, maximum length and label rule, for
// the verdict cache.
func (v *Verifier) Version() string { return v.version }

// QueryByDefault is false: a pair model reads the user's query (as a third
// segment, adjudicate.ClaimSegment) only under --verifier-query on.
func (v *Verifier) QueryByDefault() bool { return false }

// PreferredBatchSize is the number of claims per Verify call.
func (v *Verifier) PreferredBatchSize() int { return v.maxBatch }

// PreferredWorkers implements adjudicate.WorkerSizer: with runs side by
// side, two calls in flight, so that the next call's runs fill the cores
// while the current call's last runs finish (measured on two cores: 1.9
// cores busy against 1.75 with one call; BENCHMARKS.md, issue 42); else one.
func (v *Verifier) PreferredWorkers() int {
	if v.slots != nil {
		return 2
	}
	return 1
}

// Strength implements adjudicate.PassageScorer: the larger of p(supported)
// and p(unsupported); a two-label model's p(supported) alone (its
// not-supported column is not evidence against).
func (v *Verifier) Strength(p [3]float64) float64 {
	if v.labels.binary {
		return p[adjudicate.Supported]
	}
	return adjudicate.EvidenceEitherWay(p)
}

// Close releases the session.
func (v *Verifier) Close() error { return v.session.Destroy() }

// MaxLength is the most tokens of a pair.
func (v *Verifier) MaxLength() int { return v.maxLen }

type encoded struct {
	claim, passage int // indexes in the batch
	ids, types     []int64
}

// bucket is the padded width of a sequence: a multiple of 16.
func bucket(n int) int { return max(16, (n+15)/16*16) }

// waveSize is how many pairs are tokenised before their inference starts
// (the next wave is tokenised meanwhile).
func (v *Verifier) waveSize() int { return 4 * v.maxBatch }

// call is one Verify call's pairs: each claim with each of its passages
// (or an empty one), tokenised wave by wave.
type call struct {
	batch []adjudicate.Pair
	pairs []encoded
	texts [][2]string
	errs  []error
}

func (v *Verifier) newCall(batch []adjudicate.Pair) *call {
	c := &call{batch: batch}
	for ci, p := range batch {
		passages := p.Passages
		if len(passages) == 0 {
			passages = []adjudicate.Passage{{}}
		}
		for pi, ps := range passages {
			c.pairs = append(c.pairs, encoded{claim: ci, passage: pi})
			c.texts = append(c.texts, [2]string{ps.Text, adjudicate.ClaimSegment(p)})
		}
	}
	c.errs = make([]error, len(c.pairs))
	return c
}

// tokenize encodes pairs lo..hi-1 on all cores.
func (v *Verifier) tokenize(c *call, lo, hi int) {
	v.tok.Parallel(hi-lo, func(i int) {
		e, err := v.tok.EncodePair(c.texts[lo+i][0], c.texts[lo+i][1], v.maxLen)
		c.pairs[lo+i].ids, c.pairs[lo+i].types, c.errs[lo+i] = e.IDs, e.TypeIDs, err
	})
}

// Verify scores every (passage, claim) pair and picks each claim's
// deciding passage.
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := v.newCall(batch)
	// Tokenise wave by wave on all cores, one wave ahead of inference.
	ready := make(chan [2]int, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(ready)
		for lo := 0; lo < len(c.pairs); lo += v.waveSize() {
			hi := min(lo+v.waveSize(), len(c.pairs))
			v.tokenize(c, lo, hi)
			select {
			case ready <- [2]int{lo, hi}:
			case <-stop:
				return
			}
		}
	}()
	defer wg.Wait()
	defer close(stop)
	logits := make([][3]float64, len(c.pairs))
	ex := v.executor(ctx)
	for r := range ready {
		if err := v.infer(ctx, c, r[0], r[1], logits, ex); err != nil {
			return nil, ex.finish(err)
		}
	}
	if err := ex.finish(nil); err != nil {
		return nil, err
	}
	return v.verdicts(c, logits), nil
}

// Prepare tokenises a batch whole and returns the rest of its Verify call:
// inference, wave by wave in the very batches Verify runs (so the logits
// are Verify's, bit for bit, whatever the model), and the deciding
// passages. The scheduler prepares a worker's next batch while the current
// one runs, so that no Verify call starts with the model idle while its
// first wave is tokenised. The returned function may be called again (a
// retry) and concurrently.
func (v *Verifier) Prepare(ctx context.Context, batch []adjudicate.Pair) func(context.Context) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return func(context.Context) ([]adjudicate.Verdict, error) { return nil, err }
	}
	c := v.newCall(batch)
	v.tokenize(c, 0, len(c.pairs))
	return func(ctx context.Context) ([]adjudicate.Verdict, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		logits := make([][3]float64, len(c.pairs))
		ex := v.executor(ctx)
		for lo := 0; lo < len(c.pairs); lo += v.waveSize() {
			if err := v.infer(ctx, c, lo, min(lo+v.waveSize(), len(c.pairs)), logits, ex); err != nil {
				return nil, ex.finish(err)
			}
		}
		if err := ex.finish(nil); err != nil {
			return nil, err
		}
		return v.verdicts(c, logits), nil
	}
}

// infer runs the model on the tokenised pairs lo..hi-1 (a wave): grouped
// by bucket (stably, so in pair order within one), at most maxBatch pairs
// per run, each run through ex. The runs depend only on the wave's pairs.
func (v *Verifier) infer(ctx context.Context, c *call, lo, hi int, logits [][3]float64, ex *executor) error {
	for i := lo; i < hi; i++ {
		if c.errs[i] != nil {
			return fmt.Errorf("claim %s: tokenize: %w", c.batch[c.pairs[i].claim].ClaimID, c.errs[i])
		}
	}
	pairs := c.pairs
	order := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		order = append(order, i)
	}
	sort.SliceStable(order, func(a, b int) bool { return bucket(len(pairs[order[a]].ids)) < bucket(len(pairs[order[b]].ids)) })
	for start := 0; start < len(order); {
		w := bucket(len(pairs[order[start]].ids))
		end := start
		for end < len(order) && end-start < v.maxBatch && bucket(len(pairs[order[end]].ids)) == w {
			end++
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := order[start:end]
		if err := ex.do(func() error { return v.run(pairs, idx, w, logits) }); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// executor runs one call's model runs: on the calling goroutine, one after
// the other, when the verifier has no slots; else each on a goroutine of
// its own once a slot is free (the slots are the verifier's, shared by
// concurrent calls). Runs write disjoint rows of the call's logits, so
// the order they finish in changes nothing.
type executor struct {
	ctx   context.Context
	slots chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	errs  []error // by run, in the order submitted
	bad   bool
}

func (v *Verifier) executor(ctx context.Context) *executor {
	return &executor{ctx: ctx, slots: v.slots}
}

// errStopped tells infer to submit no more runs: one has failed, and
// finish gives its error.
var errStopped = errors.New("onnx: an earlier run failed")

// do runs f, or starts it once a slot is free.
func (e *executor) do(f func() error) error {
	if e.slots == nil {
		return f()
	}
	e.mu.Lock()
	k, bad := len(e.errs), e.bad
	e.errs = append(e.errs, nil)
	e.mu.Unlock()
	if bad {
		return errStopped
	}
	select {
	case e.slots <- struct{}{}:
	case <-e.ctx.Done():
		return e.ctx.Err()
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer func() { <-e.slots }()
		if err := f(); err != nil {
			e.mu.Lock()
			e.errs[k], e.bad = err, true
			e.mu.Unlock()
		}
	}()
	return nil
}

// finish waits for the runs started and gives the error of the first run
// submitted that failed, else err (the caller's own: a tokenising error,
// the context's, or nil).
func (e *executor) finish(err error) error {
	e.wg.Wait()
	for _, rerr := range e.errs {
		if rerr != nil {
			return rerr
		}
	}
	return err
}

// verdicts picks each claim's deciding passage from its pairs' logits.
func (v *Verifier) verdicts(c *call, logits [][3]float64) []adjudicate.Verdict {
	idx := make([]adjudicate.PairIndex, len(c.pairs))
	for i, e := range c.pairs {
		idx[i] = adjudicate.PairIndex{Claim: e.claim, Passage: e.passage}
	}
	out := adjudicate.Strongest(c.batch, idx, logits, v.Strength)
	for i, p := range c.batch {
		out[i].Rationale = v.rationale(p, out[i])
	}
	return out
}

// input builds one [n, width] input tensor of the model's integer type.
func (v *Verifier) input(n, width int, fill func(row int, dst []int64)) (ort.Value, error) {
	data := make([]int64, n*width)
	for r := 0; r < n; r++ {
		fill(r, data[r*width:(r+1)*width])
	}
	shape := ort.NewShape(int64(n), int64(width))
	if !v.int32IDs {
		return ort.NewTensor(shape, data)
	}
	d32 := make([]int32, len(data))
	for i, x := range data {
		d32[i] = int32(x)
	}
	return ort.NewTensor(shape, d32)
}

func (v *Verifier) run(pairs []encoded, idx []int, width int, logits [][3]float64) error {
	v.hook(pairs, idx, width)
	n := len(idx)
	pad := v.tok.PadID()
	var tensors []ort.Value
	defer func() {
		for _, t := range tensors {
			t.Destroy()
		}
	}()
	for _, f := range v.feeds {
		t, err := v.input(n, width, func(r int, dst []int64) {
			e := pairs[idx[r]]
			switch f {
			case feedIDs:
				copy(dst, e.ids)
				for c := len(e.ids); c < width; c++ {
					dst[c] = pad
				}
			case feedMask:
				for c := range e.ids {
					dst[c] = 1
				}
			case feedTypes:
				copy(dst, e.types)
			}
		})
		if err != nil {
			return fmt.Errorf("onnx input: %w", err)
		}
		tensors = append(tensors, t)
	}
	labels := v.labels.n
	var out ort.Value
	var read func() []float64
	switch v.outType {
	case ort.TensorElementDataTypeFloat:
		t, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(n), int64(labels)))
		if err != nil {
			return fmt.Errorf("onnx output: %w", err)
		}
		out = t
		read = func() []float64 {
			r := make([]float64, n*labels)
			for i, x := range t.GetData() {
				r[i] = float64(x)
			}
			return r
		}
	case ort.TensorElementDataTypeDouble:
		t, err := ort.NewEmptyTensor[float64](ort.NewShape(int64(n), int64(labels)))
		if err != nil {
			return fmt.Errorf("onnx output: %w", err)
		}
		out = t
		read = func() []float64 { return append([]float64(nil), t.GetData()...) }
	case ort.TensorElementDataTypeFloat16:
		t, err := ort.NewCustomDataTensor(ort.NewShape(int64(n), int64(labels)), make([]byte, 2*n*labels), ort.TensorElementDataTypeFloat16)
		if err != nil {
			return fmt.Errorf("onnx output: %w", err)
		}
		out = t
		read = func() []float64 {
			b := t.GetData()
			r := make([]float64, n*labels)
			for i := range r {
				r[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
			}
			return r
		}
	}
	defer out.Destroy()
	if err := v.session.Run(tensors, []ort.Value{out}); err != nil {
		err = fmt.Errorf("onnx run: %w", err)
		if transientRunError(err) {
			return adjudicate.Transient(err)
		}
		return err
	}
	got := read()
	for r, i := range idx {
		logits[i] = v.labels.apply(got[r*labels : (r+1)*labels])
	}
	return nil
}

// hook shows a run to onRun (tests), one run at a time.
func (v *Verifier) hook(pairs []encoded, idx []int, width int) {
	if v.onRun != nil {
		v.runMu.Lock()
		v.onRun(pairs, idx, width)
		v.runMu.Unlock()
	}
}

// transientRunError: a run fails the same way again for the same input
// unless the device ran short of memory or was busy.
func transientRunError(err error) bool {
	s := strings.ToLower(err.Error())
	for _, m := range []string{"out of memory", "cuda_error_out_of_memory", "failed to allocate", "cudaerrormemoryallocation", "device busy", "resource exhausted"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// halfToFloat decodes an IEEE 754 half-precision number.
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * frac * math.Pow(2, -24)
	case 0x1f:
		if frac == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

func (v *Verifier) rationale(p adjudicate.Pair, vd adjudicate.Verdict) string {
	pr := adjudicate.Probabilities(vd.Logits)
	probs := fmt.Sprintf("entailment %.2f, contradiction %.2f, neutral %.2f", pr[0], pr[1], pr[2])
	if v.labels.binary {
		probs = fmt.Sprintf("supported %.2f (two-label model: not supported counts as %s)", pr[0], v.labels.rule)
	}
	if vd.Passage < 0 {
		return "no evidence retrieved; model on the claim alone: " + probs
	}
	ev := p.Passages[vd.Passage]
	loc := ev.DocID
	if ev.SpanID != "" {
		loc += "/" + ev.SpanID
	}
	return fmt.Sprintf("%s [%d,%d): %s (strongest of %d passages)", loc, ev.Start, ev.End, probs, len(p.Passages))
}

// initWithoutLeftovers initialises the ONNX Runtime environment with
// $TMPDIR pointing at a fresh folder it then removes, and turns its
// telemetry off. It runs once, before any verifier exists.
func initWithoutLeftovers() error {
	tmp, err := os.MkdirTemp("", "claimaudit-ort-")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoRuntime, err)
	}
	defer os.RemoveAll(tmp)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", tmp)
	err = ort.InitializeEnvironment()
	if had {
		os.Setenv("TMPDIR", old)
	} else {
		os.Unsetenv("TMPDIR")
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoRuntime, err)
	}
	if err := ort.DisableTelemetry(); err != nil {
		return fmt.Errorf("%w: %v", ErrNoRuntime, err)
	}
	return nil
}

// specialTokens counts the special tokens a pair adds ([CLS] a [SEP] b
// [SEP] for BERT): one text's encoding adds two, a pair one more.
func (v *Verifier) specialTokens() int {
	e, err := v.tok.Encode("")
	if err != nil {
		return 3
	}
	return len(e.IDs) + 1
}

// CountTokens is the number of tokens the model reads in text (special
// tokens aside), for sizing the chunks of a cited document.
func (v *Verifier) CountTokens(text string) int {
	e, err := v.tok.Encode(text)
	if err != nil {
		return len(text) // never more tokens than bytes: a safe bound
	}
	return max(0, len(e.IDs)-(v.specialTokens()-1))
}

// PassageTokens is how many tokens of passage fit beside the claim in
// the model's --max-length, so that a chunk of a cited document is read
// whole, never truncated.
func (v *Verifier) PassageTokens(claim string) int {
	return v.maxLen - v.CountTokens(claim) - v.specialTokens()
}
