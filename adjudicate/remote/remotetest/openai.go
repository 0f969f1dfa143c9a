package remotetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// TopLogprob is one alternative token at a position of the answer.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// Answer is what a Judge says to one prompt.
type Answer struct {
	Content string // the assistant message
	// LabelTop are the alternatives at the token that starts the label's
	// value (the chosen one first); the other tokens get themselves only.
	LabelTop []TopLogprob
	// NoLogprobs answers without logprobs, as servers that do not support
	// them do.
	NoLogprobs   bool
	FinishReason string // default "stop"
}

// OpenAI serves POST /v1/chat/completions and GET /v1/models as an
// OpenAI-compatible server (vLLM, llama.cpp, TGI) does.
type OpenAI struct {
	Counters
	Model  string
	APIKey string // when set, requests must carry "Authorization: Bearer APIKey"
	// Judge answers the prompt (the user messages, joined).
	Judge func(prompt string) Answer
	fault Fault

	mu       sync.Mutex
	requests []map[string]any // every request body, decoded
}

// NewOpenAI serves model with a judge.
func NewOpenAI(model string, judge func(prompt string) Answer) *OpenAI {
	return &OpenAI{Model: model, Judge: judge}
}

// SetFault installs a fault hook (nil removes it).
func (o *OpenAI) SetFault(f Fault) {
	o.Counters.mu.Lock()
	o.fault = f
	o.Counters.mu.Unlock()
}

// Requests returns the request bodies received so far.
func (o *OpenAI) Requests() []map[string]any {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]map[string]any(nil), o.requests...)
}

// ServeHTTP implements the two routes.
func (o *OpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(&o.Counters, &o.fault, o.handle).ServeHTTP(w, r)
}

func openAIError(w http.ResponseWriter, status int, typ, format string, args ...any) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": fmt.Sprintf(format, args...), "type": typ, "param": nil, "code": nil}})
}

var labelValue = regexp.MustCompile(`"label"\s*:\s*"`)

func (o *OpenAI) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if o.APIKey != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if got != o.APIKey {
			// Real servers echo (part of) the key they were given.
			openAIError(w, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided: %s. You can find your API key at your provider.", got)
			return
		}
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/v1/models" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{"id": o.Model, "object": "model", "owned_by": "test"}}})
		return
	case path == "/v1/chat/completions" && r.Method == http.MethodPost:
	default:
		openAIError(w, http.StatusNotFound, "invalid_request_error", "unknown route %s %s", r.Method, r.URL.Path)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Logprobs    bool `json:"logprobs"`
		TopLogprobs int  `json:"top_logprobs"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "We could not parse the JSON body of your request: %v", err)
		return
	}
	var raw map[string]any
	_ = json.Unmarshal(body, &raw)
	o.mu.Lock()
	o.requests = append(o.requests, raw)
	o.mu.Unlock()
	if req.Model != o.Model {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "The model `%s` does not exist", req.Model)
		return
	}
	var prompt []string
	for _, m := range req.Messages {
		prompt = append(prompt, m.Content)
	}
	p := strings.Join(prompt, "\n")
	a := o.Judge(p)
	if a.FinishReason == "" {
		a.FinishReason = "stop"
	}
	choice := map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": a.Content}, "finish_reason": a.FinishReason, "logprobs": nil}
	tokens := splitAnswer(a.Content)
	if req.Logprobs && !a.NoLogprobs {
		var content []map[string]any
		labelAt := -1
		if loc := labelValue.FindStringIndex(a.Content); loc != nil {
			labelAt = loc[1]
		}
		off := 0
		for _, tok := range tokens {
			top := []TopLogprob{{Token: tok, Logprob: 0}}
			if off == labelAt && len(a.LabelTop) > 0 {
				top = a.LabelTop[:min(len(a.LabelTop), max(req.TopLogprobs, 1))]
			}
			content = append(content, map[string]any{"token": tok, "logprob": top[0].Logprob, "bytes": []byte(tok), "top_logprobs": top})
			off += len(tok)
		}
		choice["logprobs"] = map[string]any{"content": content}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": o.Model,
		"system_fingerprint": "fp_test", "choices": []any{choice},
		"usage": map[string]int{"prompt_tokens": len(strings.Fields(p)), "completion_tokens": len(tokens), "total_tokens": len(strings.Fields(p)) + len(tokens)},
	})
}

// splitAnswer cuts an answer into "tokens": the label's value is a token of
// its own, starting where the value starts (as a real tokenizer's piece
// would, without the quote).
func splitAnswer(s string) []string {
	loc := labelValue.FindStringIndex(s)
	if loc == nil {
		return []string{s}
	}
	start := loc[1]
	end := start + strings.IndexByte(s[start:], '"')
	if end < start {
		return []string{s[:start], s[start:]}
	}
	return []string{s[:start], s[start:end], s[end:]}
}
