// Package openai is an LLM judge: each claim and its retrieved passages go
// to an OpenAI-compatible chat completions endpoint (vLLM, llama.cpp's
// server, TGI, or a hosted API) in a documented prompt (prompt.tmpl,
// replaceable with --prompt FILE) that asks for one JSON object whose
// first field is the label. The answer is parsed strictly: a JSON object
// (a Markdown code fence around it is tolerated) whose "label" is one of
// supported, unsupported, insufficient and whose "passage", when given,
// names one of the passages shown.
//
// Probabilities come from the logprobs of the token that starts the label:
// the top alternatives there are mapped onto the three labels by prefix
// (the labels begin with different letters), the mass of the alternatives
// not returned is shared by the labels not seen, and the logits are the
// log probabilities — so temperature scaling and ECE mean something. A
// server that returns no logprobs gives the documented fallback: the
// answered label at probability 0.98, the others 0.01, and the verdict
// marked HardLabel (calibration unavailable).
//
// The API key is read from the environment variable --api-key-env names,
// sent as a bearer token, and never appears in the verifier's version, in
// an error or in a rationale.
//
// Protocol: https://platform.openai.com/docs/api-reference/chat/create
// (messages, temperature, max_tokens, logprobs, top_logprobs,
// response_format, seed; choices[].logprobs.content[].top_logprobs; usage).
package openai

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/claimaudit/claimaudit/label"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"golang.org/x/sync/errgroup"
)

//go:embed prompt.tmpl
var defaultPrompt string

// DefaultPrompt is the prompt template used without --prompt.
func DefaultPrompt() string { return defaultPrompt }

// MaxPassageRunes bounds each passage shown to the judge.
const MaxPassageRunes = 2000

// Fallback probabilities when the server returns no logprobs.
const (
	FallbackChosen = 0.98
	FallbackOther  = 0.01
)

// DefaultAPIKeyEnv is the variable the API key is read from by default.
const DefaultAPIKeyEnv = remote.DefaultAPIKeyEnv

// ErrBadAnswer is an answer that is not the asked-for JSON object.
var ErrBadAnswer = errors.New("judge's answer is not the required JSON")

// Options configure the judge.
type Options struct {
	Client    remote.Options // Client.Secret is set from APIKeyEnv
	Model     string         // the model name the server serves
	APIKeyEnv string         // environment variable holding the API key ("" or unset: none)
	Prompt    string         // template file ("" = the embedded prompt.tmpl)
	MaxTokens int            // answer budget
	Logprobs  bool           // ask for logprobs
	JSONMode  bool           // send response_format {"type": "json_object"}
	// Getenv reads the environment (tests inject one).
	Getenv func(string) string
}

// Backend describes the openai judge for the registry.
func Backend() adjudicate.Backend {
	return adjudicate.Backend{
		Name: "openai",
		Help: "LLM judge over an OpenAI-compatible chat completions API: vLLM, llama.cpp, TGI or hosted (--endpoint URL ending in /v1, --model NAME)",
		Configure: func(fs *flag.FlagSet) adjudicate.Factory {
			co := remote.Flags(fs)
			o := Options{}
			fs.StringVar(&o.Model, "model", "", "openai: the model name the server serves")
			fs.StringVar(&o.APIKeyEnv, "api-key-env", DefaultAPIKeyEnv, "openai: environment variable holding the API key (sent as a bearer token; never logged or recorded)")
			fs.StringVar(&o.Prompt, "prompt", "", "openai: prompt template file (Go text/template over .Claim, .Passages and .Query; default: the documented built-in)")
			fs.IntVar(&o.MaxTokens, "max-tokens", 200, "openai: most tokens in the judge's answer")
			fs.BoolVar(&o.Logprobs, "logprobs", true, "openai: ask for logprobs (without them the probabilities are a fixed fallback and calibration is unavailable)")
			fs.BoolVar(&o.JSONMode, "json-mode", true, "openai: ask for JSON output (response_format json_object)")
			return func(adjudicate.Env) (adjudicate.Verifier, error) {
				o.Client = *co
				return New(o)
			}
		},
	}
}

// Verifier is the LLM judge.
type Verifier struct {
	c       *remote.Chat
	o       Options
	version string
}

// New checks the options and makes the judge. It sends nothing.
func New(o Options) (*Verifier, error) {
	if o.MaxTokens <= 0 {
		return nil, fmt.Errorf("openai verifier: --max-tokens %d must be positive", o.MaxTokens)
	}
	c, err := remote.NewChat(remote.ChatOptions{Client: o.Client, Model: o.Model, APIKeyEnv: o.APIKeyEnv, Prompt: o.Prompt,
		DefaultPrompt: defaultPrompt, Sample: promptData{Claim: "x", Passages: []promptPassage{{N: 1, Source: "d", Text: "y"}}, Query: "q"},
		Who: "openai verifier", Getenv: o.Getenv})
	if err != nil {
		return nil, err
	}
	v := &Verifier{c: c, o: o}
	v.version = fmt.Sprintf("openai/%s/%s/prompt:%s/max-tokens:%d/logprobs:%t/json:%t", c.Endpoint(), o.Model, c.PromptHash[:12], o.MaxTokens, o.Logprobs, o.JSONMode)
	return v, nil
}

// Version names the server, the model, the prompt and the request
// settings, for the verdict cache. It holds no secret.
func (v *Verifier) Version() string { return v.version }

// QueryByDefault is true: the judge's prompt gives the user's query as
// context when the claim's output has one (--verifier-query auto).
func (v *Verifier) QueryByDefault() bool { return true }

// PreferredBatchSize is the number of claims per Verify call; their
// requests go out in parallel (up to --max-inflight across the process).
// A claim whose request fails fails its batch: --batch-size 1 confines
// such an error to its own claim.
func (v *Verifier) PreferredBatchSize() int { return 8 }

// Close releases idle connections.
func (v *Verifier) Close() error { return v.c.Close() }

// Secrets are the client's (API key, endpoint password): a run redacts
// them from everything it writes.
func (v *Verifier) Secrets() []string { return v.c.Secrets() }

type promptPassage struct {
	N      int
	Source string // doc_id, /span_id when the passage is a span
	Text   string
}

type promptData struct {
	Claim    string
	Passages []promptPassage
	// Query is the user's question the claim's output answered ("" when
	// the pair carries none): context for the judge, not what it judges.
	Query string
}

// Prompt renders the prompt for one claim.
func (v *Verifier) Prompt(p adjudicate.Pair) (string, error) {
	d := promptData{Claim: p.Claim, Query: p.Query}
	for i, ps := range p.Passages {
		src := ps.DocID
		if ps.SpanID != "" {
			src += "/" + ps.SpanID
		}
		text := strings.Join(strings.Fields(ps.Text), " ")
		if r := []rune(text); len(r) > MaxPassageRunes {
			text = string(r[:MaxPassageRunes]) + "…"
		}
		d.Passages = append(d.Passages, promptPassage{N: i + 1, Source: src, Text: text})
	}
	return v.c.Render(d)
}

// Verify asks the judge about each claim, in parallel.
func (v *Verifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]adjudicate.Verdict, len(batch))
	g, gctx := errgroup.WithContext(ctx)
	for i := range batch {
		g.Go(func() error {
			vd, err := v.judge(gctx, batch[i])
			if err != nil {
				return fmt.Errorf("claim %s: %w", batch[i].ClaimID, err)
			}
			out[i] = vd
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return out, nil
}

func (v *Verifier) judge(ctx context.Context, p adjudicate.Pair) (adjudicate.Verdict, error) {
	prompt, err := v.Prompt(p)
	if err != nil {
		return adjudicate.Verdict{}, err
	}
	req := remote.ChatRequest{Model: v.o.Model, Messages: []remote.ChatMessage{{Role: "user", Content: prompt}}, MaxTokens: v.o.MaxTokens}
	if v.o.Logprobs {
		req.Logprobs, req.TopLogprobs = true, 5
	}
	if v.o.JSONMode {
		req.ResponseFormat = map[string]string{"type": "json_object"}
	}
	resp, ch, err := v.c.Complete(ctx, req)
	if errors.Is(err, remote.ErrNoContent) || err == nil && ch.Message.Content == nil {
		return adjudicate.Verdict{}, fmt.Errorf("%w: %w", ErrBadAnswer, remote.ErrNoContent)
	}
	if err != nil {
		return adjudicate.Verdict{}, err
	}
	content := *ch.Message.Content
	if ch.FinishReason == "length" {
		return adjudicate.Verdict{}, fmt.Errorf("%w: the answer was cut at --max-tokens %d: %q", ErrBadAnswer, v.o.MaxTokens, short(content))
	}
	ans, labelAt, err := parseAnswer(content, len(p.Passages))
	if err != nil {
		return adjudicate.Verdict{}, err
	}
	vd := adjudicate.Verdict{Passage: ans.passage}
	if resp.Usage != nil {
		vd.Usage = *resp.Usage
	}
	vd.Usage.Calls, vd.Usage.Retries = 1, resp.Retries
	var probs [3]float64
	ok := false
	if ch.Logprobs != nil {
		toks := make([]string, len(ch.Logprobs.Content))
		tops := make([][]remote.TopLogprob, len(ch.Logprobs.Content))
		for i, c := range ch.Logprobs.Content {
			toks[i], tops[i] = c.Token, c.TopLogprobs
			if len(tops[i]) == 0 {
				tops[i] = []remote.TopLogprob{{Token: c.Token, Logprob: c.Logprob}}
			}
			if err := checkLogprobs(c.Logprob, tops[i]); err != nil {
				// This claim's numbers cannot be trusted; its batch's other
				// claims are unaffected (the scheduler gives it the error).
				return adjudicate.Verdict{Passage: -1, Err: fmt.Errorf("answer token %d %q: %w", i, short(c.Token), err)}, nil
			}
		}
		probs, ok = labelProbabilities(content, labelAt, toks, tops)
	}
	source := "logprobs"
	if !ok {
		vd.HardLabel = true
		source = "no logprobs: fixed fallback, calibration unavailable"
		for k := range probs {
			probs[k] = FallbackOther
		}
		probs[ans.label] = FallbackChosen
	}
	for k := range probs {
		vd.Logits[k] = math.Log(probs[k])
	}
	vd.Rationale = rationale(p, ans, probs, source)
	return vd, nil
}

// checkLogprobs applies adjudicate.CheckLogprob to a token's log-probability
// and its alternatives', clamping values that round above 0 in place.
func checkLogprobs(lp float64, tops []remote.TopLogprob) error {
	if _, err := adjudicate.CheckLogprob(lp); err != nil {
		return err
	}
	for j := range tops {
		v, err := adjudicate.CheckLogprob(tops[j].Logprob)
		if err != nil {
			return fmt.Errorf("alternative %q: %w", short(tops[j].Token), err)
		}
		tops[j].Logprob = v
	}
	return nil
}

type answer struct {
	label   int
	passage int // index, -1 for none
	reason  string
}

var labelNames = [3]string{string(label.All[0]), string(label.All[1]), string(label.All[2])}

var labelKey = regexp.MustCompile(`"label"\s*:\s*"`)

// parseAnswer reads the judge's JSON object; labelAt is the byte offset in
// content where the label's value starts.
func parseAnswer(content string, passages int) (answer, int, error) {
	s := remote.StripFence(content)
	var raw struct {
		Label   *string         `json:"label"`
		Passage json.RawMessage `json:"passage"`
		Reason  string          `json:"reason"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return answer{}, 0, fmt.Errorf("%w: %q", ErrBadAnswer, short(content))
	}
	if raw.Label == nil {
		return answer{}, 0, fmt.Errorf("%w: no \"label\" in %q", ErrBadAnswer, short(content))
	}
	if k, dup := duplicateKey(s); dup {
		// Which one counts is ambiguous (the decoder keeps the last, the
		// logprobs are read at the first): neither is taken.
		return answer{}, 0, fmt.Errorf("%w: key %q appears twice in %q", ErrBadAnswer, k, short(content))
	}
	a := answer{label: -1, passage: -1, reason: raw.Reason}
	for k, n := range labelNames {
		if strings.EqualFold(strings.TrimSpace(*raw.Label), n) {
			a.label = k
		}
	}
	if a.label < 0 {
		return answer{}, 0, fmt.Errorf("%w: label %q is not supported, unsupported or insufficient", ErrBadAnswer, *raw.Label)
	}
	if ps := strings.TrimSpace(string(raw.Passage)); ps != "" && ps != "null" {
		var n int
		if err := json.Unmarshal(raw.Passage, &n); err != nil {
			return answer{}, 0, fmt.Errorf("%w: passage %s is not a number or null", ErrBadAnswer, ps)
		}
		if n < 0 || n > passages {
			return answer{}, 0, fmt.Errorf("%w: passage %d, but %d passages were shown", ErrBadAnswer, n, passages)
		}
		a.passage = n - 1 // 0 means none
	}
	labelAt := -1
	if loc := labelKey.FindStringIndex(content); loc != nil {
		labelAt = loc[1]
	}
	return a, labelAt, nil
}

// duplicateKey finds a key that appears twice in the top-level object s.
func duplicateKey(s string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := tok.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", false
		}
	}
	return "", false
}

// labelProbabilities reads the label's distribution from the alternatives
// at the token where its value starts. ok is false when the tokens do not
// spell the content or no alternative names a label.
func labelProbabilities(content string, labelAt int, toks []string, tops [][]remote.TopLogprob) ([3]float64, bool) {
	var p [3]float64
	if labelAt < 0 || strings.Join(toks, "") != content {
		return p, false
	}
	start := 0
	for i, tok := range toks {
		end := start + len(tok)
		if labelAt >= end {
			start = end
			continue
		}
		prefix := content[start:labelAt] // e.g. `"` or ` "` when the token carries the quote
		seenMass := 0.0
		found := false
		for _, c := range tops[i] {
			q := math.Exp(c.Logprob)
			seenMass += q
			rest, ok := strings.CutPrefix(c.Token, prefix)
			if !ok || rest == "" {
				continue
			}
			rest = strings.ToLower(rest)
			for k, n := range labelNames {
				if strings.HasPrefix(n, rest) || strings.HasPrefix(rest, n) {
					p[k] += q
					found = true
				}
			}
		}
		if !found {
			return p, false
		}
		unseen := 0
		for k := range p {
			if p[k] == 0 {
				unseen++
			}
		}
		for k := range p {
			if p[k] == 0 {
				p[k] = math.Max((1-math.Min(seenMass, 1))/float64(unseen), 1e-6)
			}
		}
		return p, true
	}
	return p, false
}

func rationale(p adjudicate.Pair, a answer, probs [3]float64, source string) string {
	sum := probs[0] + probs[1] + probs[2]
	where := "no passage named"
	if a.passage >= 0 {
		ev := p.Passages[a.passage]
		loc := ev.DocID
		if ev.SpanID != "" {
			loc += "/" + ev.SpanID
		}
		where = fmt.Sprintf("passage %d, %s [%d,%d)", a.passage+1, loc, ev.Start, ev.End)
	}
	r := fmt.Sprintf("judge: %s (p %.2f, %s); %s", labelNames[a.label], probs[a.label]/sum, source, where)
	if a.reason != "" {
		r += ": " + short(a.reason)
	}
	return r
}

func short(s string) string { return remote.Short(s) }
