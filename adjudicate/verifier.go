package adjudicate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Passage is one piece of retrieved evidence.
type Passage struct {
	ID     string  `json:"passage_id"`
	DocID  string  `json:"doc_id"`
	SpanID string  `json:"span_id,omitempty"`
	Start  int     `json:"start"`
	End    int     `json:"end"`
	Text   string  `json:"text"`
	Score  float64 `json:"score"` // retrieval score
	Cited  bool    `json:"cited,omitempty"`
}

// Pair is one claim with its retrieved passages, best first.
type Pair struct {
	ClaimID  string
	Claim    string
	Passages []Passage
	// PerPassage marks a claim judged against its cited documents only:
	// the pipeline verifies each passage (chunk) as a pair of its own and
	// aggregates the verdicts (MaxSupport). A verifier is never handed a
	// pair with it set.
	PerPassage bool `json:",omitempty"`
	// Query is the user's question the claim's model output answered (the
	// outputs file's query), for a verifier that reads it (QueryReader);
	// "" in a run over a claims file, for an output without one, and
	// whenever --verifier-query keeps it from the verifier.
	Query string `json:",omitempty"`
}

// The --verifier-query modes: whether the user's query reaches the
// verifier (Pair.Query).
const (
	QueryAuto = "auto" // a verifier whose QueryByDefault is true reads it
	QueryOn   = "on"   // every QueryReader reads it
	QueryOff  = "off"  // no verifier reads it
)

// QueryModes lists the modes.
var QueryModes = []string{QueryAuto, QueryOn, QueryOff}

// QueryReader is a verifier that can read the user's query with a claim.
// QueryByDefault says whether it does under --verifier-query auto: an LLM
// judge does (its prompt gives the query as context); a pair model does
// not (the query is a third segment it was not trained with, ClaimSegment).
// A verifier that is no QueryReader never gets the query.
type QueryReader interface {
	QueryByDefault() bool
}

// ReadsQuery says whether v gets the query under the mode.
func ReadsQuery(mode string, v Verifier) bool {
	qr, ok := v.(QueryReader)
	switch {
	case !ok || mode == QueryOff:
		return false
	case mode == QueryOn:
		return true
	}
	return qr.QueryByDefault()
}

// ClaimSegment is the claim's segment of a pair model's input: the claim,
// and when the pair carries the query, the query as a third segment after
// it ("<claim>\nQuestion: <query>"; a model given this segment should have
// been trained with it).
func ClaimSegment(p Pair) string {
	if p.Query == "" {
		return p.Claim
	}
	return p.Claim + "\nQuestion: " + p.Query
}

// Logit order: supported, unsupported, insufficient.
const (
	Supported    = 0
	Unsupported  = 1
	Insufficient = 2
)

// Verdict is a verifier's answer for one pair: three raw (uncalibrated)
// logits, the index of the passage that decided (-1 when none did) and a
// short rationale naming the evidence.
type Verdict struct {
	Logits    [3]float64
	Passage   int
	Rationale string
	// HardLabel marks logits that encode a label but no probabilities (an
	// LLM judge whose server returned no logprobs): calibration metrics do
	// not apply to such verdicts.
	HardLabel bool `json:",omitempty"`
	// Usage is what a remote judge spent on the verdict; zero for models
	// that count no tokens.
	Usage Usage `json:",omitzero"`
	// PassageLogits are the raw logits of each passage scored on its own
	// (a cross-encoder's pairs), in passage order; nil when the backend
	// scores a claim's passages together. The conflict rule reads them.
	PassageLogits [][3]float64 `json:",omitempty"`
	// DecidedBy names the backend that gave the verdict when a verifier is
	// made of several (the cascade: "lexical" or its model's backend); ""
	// for a backend that decides alone. Records keep it as decided_by
	// verifier:<name>.
	DecidedBy string `json:",omitempty"`
	// Err, when set, says this claim could not be adjudicated (its logits
	// failed CheckLogits, a log-probability failed CheckLogprob): the
	// scheduler makes it the claim's error and keeps nothing else of the
	// verdict. The other claims of the batch are unaffected. Never cached
	// or spooled.
	Err error `json:"-"`
}

// Usage counts a judge's tokens for one verdict: the server's token
// counts (JSON as the chat completions API spells them), and the calls
// made and retried for it (Calls 0: no remote call, as for a local model
// or a cached verdict).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	Calls            int `json:"calls,omitempty"`
	Retries          int `json:"retries,omitempty"`
}

// Verifier labels claims against their evidence. Verify returns one verdict
// per pair, in order. The verdict of a pair must not depend on the other
// pairs of the batch, and Verify must be safe for concurrent use.
type Verifier interface {
	Verify(ctx context.Context, batch []Pair) ([]Verdict, error)
}

// PassageScorer is a verifier that scores each of a claim's passages on
// its own and decides the claim by the strongest (Strongest): Strength is
// the rule it ranks passages by. The cascade's exit needs one, to read a
// claim's passages in rounds and keep the verdict of reading them at once.
type PassageScorer interface {
	Strength(p [3]float64) float64
}

// BatchSizer is a verifier that knows its best batch size.
type BatchSizer interface {
	PreferredBatchSize() int
}

// WorkerSizer is a verifier that knows how many calls it wants in flight
// when the user names no number (--workers 0): a model on the CPU whose
// runs go side by side keeps every core busy only if its next call starts
// while the last runs of the current one finish.
type WorkerSizer interface {
	PreferredWorkers() int
}

// PreferredWorkers is v's WorkerSizer preference, 0 when it states none:
// what a wrapper of v (a cache, a composite) passes on.
func PreferredWorkers(v Verifier) int {
	if ws, ok := v.(WorkerSizer); ok {
		return ws.PreferredWorkers()
	}
	return 0
}

// Versioner is a verifier whose version (model, weights) keys the verdict
// cache: a new version must never reuse old verdicts.
type Versioner interface {
	Version() string
}

// Transient marks an error worth retrying (a timeout, a busy server).
func Transient(err error) error { return &transientError{err} }

type transientError struct{ err error }

func (e *transientError) Error() string { return "transient: " + e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// IsTransient reports whether err was marked Transient.
func IsTransient(err error) bool {
	var t *transientError
	return errors.As(err, &t)
}

// Env is what the pipeline gives a backend when it makes the verifier: it
// exists once the index is open.
type Env struct {
	// Stats gives backends that want them corpus-wide statistics (idf).
	Stats CorpusStats
	// Verifier makes another backend's verifier from the options the
	// command line gave that backend: a composite backend (the cascade)
	// builds its parts with it. nil where the program offers none.
	Verifier func(name string) (Verifier, error)
}

// CorpusStats are document frequencies from the index, for idf weights.
type CorpusStats interface {
	// DocFreq is the number of passages containing the analysed term, and
	// N the number of passages.
	DocFreq(term string) int
	N() int
}

// Factory makes a backend's verifier from the options its Configure bound.
type Factory func(Env) (Verifier, error)

// Backend names a verifier and owns its options, as a go/analysis Analyzer
// owns its flags: Configure declares them on fs (names as the command line
// spells them, without dashes) and returns the Factory that reads them once
// fs is parsed. A new backend touches only its own package and the list
// that builds the Registry.
type Backend struct {
	Name      string
	Help      string
	Configure func(fs *flag.FlagSet) Factory
	// Uses, when set, names the other backends whose options this one's
	// verifier also reads (through Env.Verifier), given fs once parsed:
	// the command line accepts their options with it.
	Uses func(fs *flag.FlagSet) []string
}

// Registry is the explicit list of backends (no init-time registration).
type Registry struct {
	byName map[string]Backend
}

// NewRegistry lists backends; a duplicate or empty name, or a backend
// without Configure, is an error.
func NewRegistry(backends ...Backend) (*Registry, error) {
	r := &Registry{byName: map[string]Backend{}}
	for _, b := range backends {
		if b.Name == "" || b.Configure == nil {
			return nil, fmt.Errorf("adjudicate: backend %q has no name or no Configure", b.Name)
		}
		if _, dup := r.byName[b.Name]; dup {
			return nil, fmt.Errorf("adjudicate: backend %q listed twice", b.Name)
		}
		r.byName[b.Name] = b
	}
	return r, nil
}

// Backend returns the named backend.
func (r *Registry) Backend(name string) (Backend, error) {
	b, ok := r.byName[name]
	if !ok {
		return Backend{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownBackend, name, strings.Join(r.Names(), ", "))
	}
	return b, nil
}

// New configures the named backend with its defaults overridden by args
// (e.g. "-model", "dir") and makes its verifier: a convenience for tests
// and programs without a command line.
func (r *Registry) New(name string, env Env, args ...string) (Verifier, error) {
	b, err := r.Backend(name)
	if err != nil {
		return nil, err
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	factory := b.Configure(fs)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s options: %w", name, err)
	}
	return factory(env)
}

// ErrUnknownBackend is returned for a name the registry does not list.
var ErrUnknownBackend = errors.New("unknown verifier backend")

// Names lists the backends, sorted.
func (r *Registry) Names() []string {
	var n []string
	for k := range r.byName {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
