package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"text/template"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/userfile"
)

// The OpenAI-compatible chat completions client that the judge
// (adjudicate/openai) and the LLM extractor (extract/llm) share: one place
// for the key, the prompt template, the request, the answer's envelope and
// the redaction of every string read from it, so a fix to secrets or
// retries lands once. It lives here, beside the HTTP client, because both
// callers already import this package and nothing lower holds an HTTP
// client (adjudicate is the contract, userfile knows only files).

// DefaultAPIKeyEnv is the variable the API key is read from by default.
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// ChatOptions configure a Chat.
type ChatOptions struct {
	Client    Options // Client.Secret is set from APIKeyEnv
	Model     string  // the model name the server serves (required)
	APIKeyEnv string  // variable holding the API key ("" or DefaultAPIKeyEnv unset: none)
	Prompt    string  // template file; "" = DefaultPrompt
	// DefaultPrompt is the caller's built-in template; Sample is data the
	// template must render (a template that fails on it is refused).
	DefaultPrompt string
	Sample        any
	// Who names the caller in errors ("openai verifier", "llm extractor").
	Who string
	// Getenv reads the environment (tests inject one; nil: os.Getenv).
	Getenv func(string) string
}

// Chat is a chat completions client with a prompt template. Safe for
// concurrent use.
type Chat struct {
	*Client
	Template *template.Template
	// PromptHash is the SHA-256 of the template text, for cache keys and
	// versions.
	PromptHash string
}

// NewChat reads the key and the prompt and makes the client. It sends
// nothing.
func NewChat(o ChatOptions) (*Chat, error) {
	if o.Model == "" {
		return nil, fmt.Errorf("%s: --model NAME is required (the model the server serves)", o.Who)
	}
	key, err := SecretFromEnv(o.Getenv, o.APIKeyEnv, DefaultAPIKeyEnv, o.Who)
	if err != nil {
		return nil, err
	}
	o.Client.Secret = key
	text := o.DefaultPrompt
	if o.Prompt != "" {
		b, err := userfile.ReadFile(o.Prompt, userfile.MaxSmall)
		if err != nil {
			return nil, fmt.Errorf("%s: --prompt: %w", o.Who, err)
		}
		text = string(b)
	}
	tmpl, err := template.New("prompt").Option("missingkey=error").Parse(text)
	if err == nil {
		err = tmpl.Execute(&bytes.Buffer{}, o.Sample)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: --prompt %s: %w", o.Who, o.Prompt, err)
	}
	c, err := New(o.Client)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Who, err)
	}
	h := sha256.Sum256([]byte(text))
	return &Chat{Client: c, Template: tmpl, PromptHash: hex.EncodeToString(h[:])}, nil
}

// Render executes the template on data.
func (c *Chat) Render(data any) (string, error) {
	var b strings.Builder
	if err := c.Template.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render prompt: %w", err)
	}
	return b.String(), nil
}

// ChatMessage is one message of a request.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a chat completions request.
type ChatRequest struct {
	Model          string            `json:"model"`
	Messages       []ChatMessage     `json:"messages"`
	Temperature    float64           `json:"temperature"`
	MaxTokens      int               `json:"max_tokens"`
	Seed           int               `json:"seed"`
	Logprobs       bool              `json:"logprobs,omitempty"`
	TopLogprobs    int               `json:"top_logprobs,omitempty"`
	ResponseFormat map[string]string `json:"response_format,omitempty"`
}

// TopLogprob is one alternative at an answer's token.
type TopLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// ChatChoice is one choice of an answer.
type ChatChoice struct {
	Message struct {
		Content *string `json:"content"`
		Refusal *string `json:"refusal"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
	Logprobs     *struct {
		Content []struct {
			Token       string       `json:"token"`
			Logprob     float64      `json:"logprob"`
			TopLogprobs []TopLogprob `json:"top_logprobs"`
		} `json:"content"`
	} `json:"logprobs"`
}

// ChatResponse is a chat completions answer.
type ChatResponse struct {
	Model   string            `json:"model"`
	Choices []ChatChoice      `json:"choices"`
	Usage   *adjudicate.Usage `json:"usage"`
	// Retries is how many times the request was retried before this
	// answer (the client's count, not the server's).
	Retries int `json:"-"`
}

// ErrNoContent is an answer without a first choice's message content.
var ErrNoContent = errors.New("the response has no message content")

// Complete sends one user message and returns the first choice. Every
// string of the answer is redacted (the client does it on the decoded
// body), so a key the server echoes in any encoding reaches no caller.
func (c *Chat) Complete(ctx context.Context, req ChatRequest) (*ChatResponse, *ChatChoice, error) {
	var resp ChatResponse
	retries, err := c.PostJSONCounted(ctx, "/chat/completions", req, &resp)
	if err != nil {
		return nil, nil, err
	}
	resp.Retries = retries
	if len(resp.Choices) == 0 {
		return &resp, nil, ErrNoContent
	}
	return &resp, &resp.Choices[0], nil
}

// StripFence returns an answer without a Markdown code fence around it.
func StripFence(content string) string {
	s := strings.TrimSpace(content)
	if f, ok := strings.CutPrefix(s, "```"); ok {
		f = strings.TrimPrefix(f, "json")
		if end := strings.LastIndex(f, "```"); end >= 0 {
			s = strings.TrimSpace(f[:end])
		}
	}
	return s
}

// Short is s with white space joined, cut at 200 runes, for messages.
func Short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// ClientFlags declares a client's connection options on fs, into o: the
// names every remote verifier shares when prefix is "" (remote.Flags), or
// prefix+name for a second client beside them (the extractor's
// "extract-endpoint" in audit run). help starts each usage.
func ClientFlags(fs *flag.FlagSet, o *Options, prefix, help string) {
	o.Backoff, o.MaxBackoff = DefaultBackoff, DefaultMaxBackoff
	fs.StringVar(&o.Endpoint, prefix+"endpoint", "", help+": the server's base URL (http:// or https://)")
	fs.DurationVar(&o.Timeout, prefix+"request-timeout", DefaultTimeout, help+": time limit of one request, body included")
	fs.IntVar(&o.Retries, prefix+"max-retries", DefaultRetries, help+": retries of a retryable failure (connection error, timeout, 408, 429, 5xx), with exponential backoff, jitter and Retry-After")
	fs.Float64Var(&o.MaxRPS, prefix+"max-rps", 0, help+": most requests started per second (0: no limit)")
	fs.IntVar(&o.MaxInflight, prefix+"max-inflight", DefaultMaxInflight, help+": most requests in flight at once")
	fs.StringVar(&o.CACert, prefix+"ca-cert", "", help+": PEM file of CA certificates to trust beside the system's (private clusters)")
}

// varName is what an environment variable's name looks like by convention.
var varName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]{0,127}$`)

// SecretFromEnv reads an API key from the environment variable name (via
// getenv, os.Getenv when nil). An empty or unset variable is an error
// unless name is defaultName, the conventional variable a server that
// needs no key leaves unset. who names the caller in errors. A name that
// does not look like a variable's (the key itself, given by mistake) is
// never shown.
func SecretFromEnv(getenv func(string) string, name, defaultName, who string) (string, error) {
	if name == "" {
		return "", nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	v := getenv(name)
	if v == "" && name != defaultName {
		if !varName.MatchString(name) {
			return "", fmt.Errorf("%s: --api-key-env takes the NAME of an environment variable (upper-case letters, digits, _), and the one given is not set; it is not shown, in case it is the key itself", who)
		}
		return "", fmt.Errorf("%s: --api-key-env %s: the variable is empty or unset", who, name)
	}
	return v, nil
}
