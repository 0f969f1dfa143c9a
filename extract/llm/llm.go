// Package llm decomposes model outputs into atomic facts with an LLM, as
// FActScore, SAFE, RAGAS and DeepEval do: each output goes to an
// OpenAI-compatible chat completions endpoint in a documented prompt
// (prompt.tmpl, replaceable) that asks for one JSON object {"facts": [...]}.
// Requests use temperature 0 and a fixed seed; answers are cached on disk
// by model, prompt and output text, so a rerun asks nothing twice.
//
// The connection is the openai verifier's shared client (adjudicate/remote):
// bounded concurrency, retries of retryable failures only, per-request
// timeouts, and an API key (read from an environment variable) that is sent
// as a bearer token and scrubbed from every error. A malformed answer, a
// refusal or a failed request is an error for that output — the caller
// writes it as the output's error row — never an empty list of facts.
package llm

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/userfile"
)

//go:embed prompt.tmpl
var defaultPrompt string

// DefaultPrompt is the prompt template used without a prompt file.
func DefaultPrompt() string { return defaultPrompt }

// DefaultAPIKeyEnv is the variable the API key is read from by default.
const DefaultAPIKeyEnv = remote.DefaultAPIKeyEnv

// Seed is sent with every request (servers that honour it answer the same
// prompt the same way).
const Seed = 1

// Errors of one output's extraction.
var (
	ErrMalformed = errors.New("the extractor's answer is not the required JSON")
	ErrRefused   = errors.New("the model refused to extract facts")
)

// Options configure the extractor.
type Options struct {
	Client    remote.Options // Client.Secret is set from APIKeyEnv
	Model     string
	APIKeyEnv string // "" or unset: no key
	Prompt    string // template file; "" = the embedded prompt.tmpl
	MaxTokens int    // answer budget; default 1024
	// CacheDir holds answers already received ("" = no cache).
	CacheDir string
	Getenv   func(string) string
}

// Extractor asks an LLM for the atomic facts of outputs. Safe for
// concurrent use.
type Extractor struct {
	c *remote.Chat
	o Options

	mu    sync.Mutex
	usage adjudicate.Usage // what the calls made so far spent (Usage)
}

// Usage is what the extractor's calls have spent so far: the server's
// token counts, the calls answered and their retries (a cached answer
// costs nothing). Safe for concurrent use.
func (e *Extractor) Usage() adjudicate.Usage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.usage
}

// count adds one answered call to the usage.
func (e *Extractor) count(resp *remote.ChatResponse) {
	if resp == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.usage.Calls++
	e.usage.Retries += resp.Retries
	if u := resp.Usage; u != nil {
		e.usage.PromptTokens += u.PromptTokens
		e.usage.CompletionTokens += u.CompletionTokens
	}
}

// New checks the options and makes the extractor. It sends nothing.
func New(o Options) (*Extractor, error) {
	if o.MaxTokens == 0 {
		o.MaxTokens = 1024
	}
	if o.MaxTokens < 0 {
		return nil, fmt.Errorf("llm extractor: --max-tokens %d must be positive", o.MaxTokens)
	}
	c, err := remote.NewChat(remote.ChatOptions{Client: o.Client, Model: o.Model, APIKeyEnv: o.APIKeyEnv, Prompt: o.Prompt,
		DefaultPrompt: defaultPrompt, Sample: promptData{Text: "x", Query: "q"}, Who: "llm extractor", Getenv: o.Getenv})
	if err != nil {
		return nil, err
	}
	return &Extractor{c: c, o: o}, nil
}

// Close releases idle connections.
func (e *Extractor) Close() error { return e.c.Close() }

type promptData struct {
	Text  string
	Query string
}

// Prompt renders the prompt for one output.
func (e *Extractor) Prompt(text, query string) (string, error) {
	return e.c.Render(promptData{Text: text, Query: query})
}

// Facts asks for the atomic facts of one output (its text and, when known,
// the question it answers), from the cache when it holds them.
func (e *Extractor) Facts(ctx context.Context, text, query string) ([]string, error) {
	prompt, err := e.Prompt(text, query)
	if err != nil {
		return nil, err
	}
	key := e.cacheKey(prompt)
	if facts, ok := e.cached(key); ok {
		return facts, nil
	}
	req := remote.ChatRequest{Model: e.o.Model, Messages: []remote.ChatMessage{{Role: "user", Content: prompt}}, MaxTokens: e.o.MaxTokens,
		Temperature: 0, Seed: Seed, ResponseFormat: map[string]string{"type": "json_object"}}
	resp, ch, err := e.c.Complete(ctx, req)
	e.count(resp) // an answer was paid for, usable or not
	if errors.Is(err, remote.ErrNoContent) {
		return nil, fmt.Errorf("%w: the response has no choice", ErrMalformed)
	}
	if err != nil {
		return nil, err
	}
	if r := ch.Message.Refusal; r != nil && *r != "" {
		return nil, fmt.Errorf("%w: %q", ErrRefused, short(*r))
	}
	if ch.FinishReason == "content_filter" {
		return nil, fmt.Errorf("%w: the server's content filter stopped the answer", ErrRefused)
	}
	if ch.Message.Content == nil {
		return nil, fmt.Errorf("%w: the response has no message content", ErrMalformed)
	}
	content := *ch.Message.Content
	if ch.FinishReason == "length" {
		return nil, fmt.Errorf("%w: the answer was cut at --max-tokens %d: %q", ErrMalformed, e.o.MaxTokens, short(content))
	}
	facts, err := ParseFacts(content)
	if err != nil {
		return nil, err
	}
	for i := range facts {
		// The answer's strings were redacted as decoded; a fact is text
		// decoded once more (from the content's own JSON).
		facts[i] = e.c.Redact(facts[i])
	}
	e.store(key, facts)
	return facts, nil
}

// ParseFacts reads {"facts": ["…", …]} (a Markdown code fence around it is
// tolerated); every fact must be a non-empty string.
func ParseFacts(content string) ([]string, error) {
	s := remote.StripFence(content)
	var raw struct {
		Facts *[]json.RawMessage `json:"facts"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, fmt.Errorf("%w: %q", ErrMalformed, short(content))
	}
	if raw.Facts == nil {
		return nil, fmt.Errorf("%w: no \"facts\" list in %q", ErrMalformed, short(content))
	}
	facts := make([]string, 0, len(*raw.Facts))
	for i, r := range *raw.Facts {
		var f string
		if err := json.Unmarshal(r, &f); err != nil {
			return nil, fmt.Errorf("%w: fact %d is %s, not a string", ErrMalformed, i+1, short(string(r)))
		}
		if f = strings.Join(strings.Fields(f), " "); f == "" {
			return nil, fmt.Errorf("%w: fact %d is empty", ErrMalformed, i+1)
		}
		facts = append(facts, f)
	}
	return facts, nil
}

// cacheKey is a hash of the model, the prompt template and the rendered
// prompt (which holds the output's text and query): what decides the
// answer. The endpoint and key are not in it, and it holds no secret.
func (e *Extractor) cacheKey(prompt string) string {
	h := sha256.New()
	fmt.Fprintf(h, "model=%s\x00template=%s\x00max_tokens=%d\x00seed=%d\x00", e.o.Model, e.c.PromptHash, e.o.MaxTokens, Seed)
	h.Write([]byte(prompt))
	return hex.EncodeToString(h.Sum(nil))
}

type cacheEntry struct {
	Key   string   `json:"key"`
	Facts []string `json:"facts"`
}

func (e *Extractor) cached(key string) ([]string, bool) {
	if e.o.CacheDir == "" {
		return nil, false
	}
	b, err := userfile.ReadFile(filepath.Join(e.o.CacheDir, key[:2], key+".json"), userfile.MaxSmall)
	if err != nil {
		return nil, false
	}
	var c cacheEntry
	// A damaged entry (a foreign file, a torn write) is a miss: asked again
	// and rewritten, never a different answer.
	if json.Unmarshal(b, &c) != nil || c.Key != key || c.Facts == nil {
		return nil, false
	}
	return c.Facts, true
}

// store writes an answer into the cache atomically; a cache that cannot be
// written costs a later rerun a request, nothing more.
func (e *Extractor) store(key string, facts []string) {
	if e.o.CacheDir == "" {
		return
	}
	dir := filepath.Join(e.o.CacheDir, key[:2])
	if os.MkdirAll(dir, outdir.DirMode) != nil {
		return
	}
	b, _ := json.Marshal(cacheEntry{Key: key, Facts: facts})
	f, err := outdir.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, key+".json"))
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

func short(s string) string { return remote.Short(s) }

// Flags declares the extractor's options on fs, each name prefixed by
// prefix ("" in audit extract; "extract-" in audit run, beside the openai
// verifier's own): the openai backend's connection options (endpoint,
// request timeout, retries, rate, in-flight bound, CA certificate) and the
// model, key variable, prompt, answer budget and cache folder.
func Flags(fs *flag.FlagSet, prefix string) *Options {
	o := &Options{}
	remote.ClientFlags(fs, &o.Client, prefix, "--extractor openai")
	fs.StringVar(&o.Model, prefix+"model", "", "--extractor openai: the model name the server serves")
	fs.StringVar(&o.APIKeyEnv, prefix+"api-key-env", DefaultAPIKeyEnv, "--extractor openai: environment variable holding the API key (sent as a bearer token; never logged or written)")
	fs.StringVar(&o.Prompt, prefix+"prompt", "", "--extractor openai: prompt template file (Go text/template over .Text and .Query; default: the documented built-in)")
	fs.IntVar(&o.MaxTokens, prefix+"max-tokens", 1024, "--extractor openai: most tokens in an answer")
	fs.StringVar(&o.CacheDir, prefix+"cache", "", "--extractor openai: folder of cached answers, keyed by model, prompt and output text (default: none)")
	return o
}
