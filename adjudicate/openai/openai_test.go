package openai

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/adjudicatetest"
	"github.com/claimaudit/claimaudit/adjudicate/remote"
	"github.com/claimaudit/claimaudit/adjudicate/remote/remotetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fastRetries(endpoint string, waits *[]time.Duration) remote.Options {
	return remote.Options{Endpoint: endpoint, Retries: 3, Timeout: 5 * time.Second, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error {
			if waits != nil {
				*waits = append(*waits, d)
			}
			return ctx.Err()
		}}
}

// hashJudge picks a label from a hash of the prompt, names passage 1 when
// passages were shown, and gives logprobs at the label.
func hashJudge(prompt string) remotetest.Answer {
	h := fnv.New32a()
	io.WriteString(h, prompt)
	k := int(h.Sum32() % 3)
	passage := "1"
	if strings.Contains(prompt, "(no passage was retrieved)") {
		passage = "null"
	}
	top := []remotetest.TopLogprob{{Token: labelNames[k], Logprob: -0.2}, {Token: labelNames[(k+1)%3][:3], Logprob: -2}, {Token: labelNames[(k+2)%3][:2], Logprob: -3.5}}
	return remotetest.Answer{Content: fmt.Sprintf(`{"label": "%s", "passage": %s, "reason": "hash %d"}`, labelNames[k], passage, h.Sum32()%100), LabelTop: top}
}

func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func newJudge(t *testing.T, o Options) *Verifier {
	t.Helper()
	if o.Model == "" {
		o.Model = "judge-7b"
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = 100
	}
	v, err := New(o)
	require.NoError(t, err)
	t.Cleanup(func() { v.Close() })
	return v
}

func TestConformance(t *testing.T) {
	url := serve(t, remotetest.NewOpenAI("judge-7b", hashJudge))
	adjudicatetest.Run(t, func(t *testing.T) adjudicate.Verifier {
		return newJudge(t, Options{Client: fastRetries(url, nil), Logprobs: true, JSONMode: true})
	})
}

var onePair = []adjudicate.Pair{{ClaimID: "c1", Claim: "Lake Orrin is 18 metres deep.", Passages: []adjudicate.Passage{
	{DocID: "lakes", SpanID: "s1", Start: 0, End: 29, Text: "Lake Orrin is 18 metres deep."}, {DocID: "other", Text: "Unrelated."}}}}

func judgeWith(t *testing.T, a remotetest.Answer, o Options) (adjudicate.Verdict, error) {
	t.Helper()
	url := serve(t, remotetest.NewOpenAI("judge-7b", func(string) remotetest.Answer { return a }))
	o.Client = fastRetries(url, nil)
	got, err := newJudge(t, o).Verify(context.Background(), onePair)
	if err != nil {
		return adjudicate.Verdict{}, err
	}
	return got[0], nil
}

// The logprobs at the label's first token become the logits: each label's
// probability is the sum over the alternatives that start it.
func TestProbabilitiesFromLogprobs(t *testing.T) {
	vd, err := judgeWith(t, remotetest.Answer{Content: `{"label": "supported", "passage": 1, "reason": "it says so"}`,
		LabelTop: []remotetest.TopLogprob{{Token: "supported", Logprob: -0.1}, {Token: "sup", Logprob: -3}, {Token: "uns", Logprob: -2.5}, {Token: "ins", Logprob: -4}, {Token: "yes", Logprob: -5}}},
		Options{Logprobs: true})
	require.NoError(t, err)
	assert.InDelta(t, math.Log(math.Exp(-0.1)+math.Exp(-3)), vd.Logits[adjudicate.Supported], 1e-12)
	assert.InDelta(t, -2.5, vd.Logits[adjudicate.Unsupported], 1e-12)
	assert.InDelta(t, -4, vd.Logits[adjudicate.Insufficient], 1e-12)
	assert.False(t, vd.HardLabel)
	assert.Equal(t, 0, vd.Passage)
	assert.Contains(t, vd.Rationale, "judge: supported (p 0.90, logprobs); passage 1, lakes/s1 [0,29): it says so")
}

// A label absent from the top alternatives gets the mass they leave.
func TestUnseenLabelGetsTheResidualMass(t *testing.T) {
	vd, err := judgeWith(t, remotetest.Answer{Content: `{"label": "unsupported", "passage": null}`,
		LabelTop: []remotetest.TopLogprob{{Token: "unsupported", Logprob: math.Log(0.7)}, {Token: "supported", Logprob: math.Log(0.2)}}},
		Options{Logprobs: true})
	require.NoError(t, err)
	assert.InDelta(t, math.Log(0.1), vd.Logits[adjudicate.Insufficient], 1e-9)
	assert.Equal(t, -1, vd.Passage)
}

// A token that carries the opening quote (` "sup`) is matched after it.
func TestLabelTokenWithQuote(t *testing.T) {
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"judge-7b","choices":[{"index":0,"message":{"role":"assistant","content":"{\"label\": \"insufficient\"}"},"finish_reason":"stop",
		"logprobs":{"content":[{"token":"{\"label\":","logprob":0,"top_logprobs":[]},{"token":" \"ins","logprob":-0.3,"top_logprobs":[{"token":" \"ins","logprob":-0.3},{"token":" \"sup","logprob":-1.5},{"token":" \"un","logprob":-2.5}]},{"token":"ufficient\"}","logprob":0,"top_logprobs":[]}]}}],
		"usage":{"prompt_tokens":120,"completion_tokens":9,"total_tokens":129}}`)
	}))
	v := newJudge(t, Options{Client: fastRetries(url, nil), Logprobs: true})
	got, err := v.Verify(context.Background(), onePair)
	require.NoError(t, err)
	assert.Equal(t, [3]float64{-1.5, -2.5, -0.3}, got[0].Logits)
	assert.Equal(t, adjudicate.Usage{PromptTokens: 120, CompletionTokens: 9, Calls: 1}, got[0].Usage, "one call, no retry")
}

// Without logprobs the documented fallback applies and the verdict says
// calibration is unavailable.
func TestFallbackWithoutLogprobs(t *testing.T) {
	for _, o := range []Options{{Logprobs: true}, {Logprobs: false}} {
		vd, err := judgeWith(t, remotetest.Answer{Content: `{"label": "insufficient", "passage": 2}`, NoLogprobs: true}, o)
		require.NoError(t, err)
		assert.True(t, vd.HardLabel)
		assert.Equal(t, [3]float64{math.Log(FallbackOther), math.Log(FallbackOther), math.Log(FallbackChosen)}, vd.Logits)
		assert.Equal(t, 1, vd.Passage)
		assert.Contains(t, vd.Rationale, "calibration unavailable")
	}
}

// Answers are parsed strictly.
func TestStrictAnswers(t *testing.T) {
	cases := []struct{ content, finish, want string }{
		{`The claim is supported.`, "", "not the required JSON"},
		{`{"label": "true"}`, "", `label "true" is not supported, unsupported or insufficient`},
		{`{"verdict": "supported"}`, "", `no "label"`},
		{`{"label": "supported", "passage": 3}`, "", "passage 3, but 2 passages were shown"},
		{`{"label": "supported", "passage": "first"}`, "", "passage \"first\" is not a number"},
		{`{"label": "supported"} and more`, "", "not the required JSON"},
		{`{"label": "supported", "reason": "because`, "length", "cut at --max-tokens"},
		// Issue 24 case 7: which label counts would be ambiguous.
		{`{"label": "unsupported", "reason": "x", "label": "supported"}`, "", `key "label" appears twice`},
	}
	for _, c := range cases {
		_, err := judgeWith(t, remotetest.Answer{Content: c.content, FinishReason: c.finish}, Options{Logprobs: true})
		require.Error(t, err, c.content)
		assert.ErrorIs(t, err, ErrBadAnswer)
		assert.Contains(t, err.Error(), c.want)
		assert.Contains(t, err.Error(), "claim c1")
		assert.False(t, adjudicate.IsTransient(err))
	}
	vd, err := judgeWith(t, remotetest.Answer{Content: "```json\n{\"label\": \"Unsupported\", \"passage\": 0}\n```", NoLogprobs: true}, Options{})
	require.NoError(t, err, "a code fence and a capitalised label are tolerated")
	assert.Equal(t, -1, vd.Passage)
	assert.Greater(t, vd.Logits[adjudicate.Unsupported], vd.Logits[adjudicate.Supported])
}

// The request follows the chat completions API: one user message with the
// rendered prompt, temperature 0, logprobs with 5 alternatives, JSON mode.
func TestRequestAndPrompt(t *testing.T) {
	srv := remotetest.NewOpenAI("judge-7b", hashJudge)
	url := serve(t, srv)
	v := newJudge(t, Options{Client: fastRetries(url, nil), Logprobs: true, JSONMode: true, MaxTokens: 64})
	_, err := v.Verify(context.Background(), onePair)
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "judge-7b", r["model"])
	assert.Equal(t, 0.0, r["temperature"])
	assert.Equal(t, 64.0, r["max_tokens"])
	assert.Equal(t, true, r["logprobs"])
	assert.Equal(t, 5.0, r["top_logprobs"])
	assert.Equal(t, map[string]any{"type": "json_object"}, r["response_format"])
	msgs := r["messages"].([]any)
	require.Len(t, msgs, 1)
	content := msgs[0].(map[string]any)["content"].(string)
	assert.Contains(t, content, "Claim: Lake Orrin is 18 metres deep.")
	assert.Contains(t, content, "[1] (lakes/s1) Lake Orrin is 18 metres deep.")
	assert.Contains(t, content, "[2] (other) Unrelated.")
	assert.Contains(t, content, `{"label": "supported" or "unsupported" or "insufficient"`)
}

func TestPromptOverride(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "p.tmpl")
	require.NoError(t, os.WriteFile(f, []byte("C={{.Claim}}{{range .Passages}} P{{.N}}={{.Text}}{{end}}"), 0o644))
	v := newJudge(t, Options{Client: remote.Options{Endpoint: "http://127.0.0.1:1/v1"}, Prompt: f})
	got, err := v.Prompt(onePair[0])
	require.NoError(t, err)
	assert.Equal(t, "C=Lake Orrin is 18 metres deep. P1=Lake Orrin is 18 metres deep. P2=Unrelated.", got)
	other := newJudge(t, Options{Client: remote.Options{Endpoint: "http://127.0.0.1:1/v1"}})
	assert.NotEqual(t, v.Version(), other.Version(), "the prompt is part of the version")

	require.NoError(t, os.WriteFile(f, []byte("{{.Nope}}"), 0o644))
	_, err = New(Options{Model: "m", MaxTokens: 10, Prompt: f, Client: remote.Options{Endpoint: "http://x/v1"}})
	assert.ErrorContains(t, err, "--prompt")
}

// The key is sent as a bearer token and never appears in an error, even
// when the server echoes it, nor in the version.
func TestAPIKeyNeverShown(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	srv := remotetest.NewOpenAI("judge-7b", hashJudge)
	srv.APIKey = key
	url := serve(t, srv)
	env := func(k string) string {
		if k == "JUDGE_KEY" {
			return key
		}
		return ""
	}
	v := newJudge(t, Options{Client: fastRetries(url, nil), APIKeyEnv: "JUDGE_KEY", Getenv: env, Logprobs: true})
	got, err := v.Verify(context.Background(), onePair)
	require.NoError(t, err)
	assert.NotContains(t, got[0].Rationale, key)
	assert.NotContains(t, v.Version(), key)

	// A wrong key: the server echoes what it got; the error does not.
	srv.APIKey = "sk-other"
	_, err = v.Verify(context.Background(), onePair)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "401")
	assert.Contains(t, err.Error(), "[redacted]")
	assert.NotContains(t, err.Error(), key)
	assert.NotContains(t, fmt.Sprintf("%+v %#v", err, err), key)

	_, err = New(Options{Model: "m", MaxTokens: 10, APIKeyEnv: "UNSET_KEY", Getenv: env, Client: remote.Options{Endpoint: "http://x/v1"}})
	assert.ErrorContains(t, err, "--api-key-env UNSET_KEY: the variable is empty or unset")
}

// TestFaults: the judge's rows of the fault table in docs/remote-verifiers.md.
func TestFaults(t *testing.T) {
	cases := []struct {
		name      string
		fault     remotetest.Fault
		wantErr   string
		wantTries int64
		wantWaits []time.Duration
	}{
		{"429 rate limit with Retry-After", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if n == 1 {
				w.Header().Set("Retry-After", "3")
				http.Error(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`, http.StatusTooManyRequests)
				return true
			}
			return false
		}, "", 2, []time.Duration{3 * time.Second}},
		{"500 until retries run out", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			http.Error(w, `{"error":{"message":"The server had an error"}}`, http.StatusInternalServerError)
			return true
		}, "gave up after 4 attempts", 4, nil},
		{"400 not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			http.Error(w, `{"error":{"message":"logprobs is not supported for this model"}}`, http.StatusBadRequest)
			return true
		}, "400 Bad Request", 1, nil},
		{"truncated body retried", func(w http.ResponseWriter, r *http.Request, n int64, _ []byte) bool {
			if n == 1 {
				remotetest.Truncated(w, `{"choices":[{"message":{"content":"{\"label\"`)
				return true
			}
			return false
		}, "", 2, nil},
		{"malformed body not retried", func(w http.ResponseWriter, r *http.Request, _ int64, _ []byte) bool {
			io.WriteString(w, `{"choices":[`)
			return true
		}, "malformed response", 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := remotetest.NewOpenAI("judge-7b", hashJudge)
			srv.SetFault(c.fault)
			url := serve(t, srv)
			var waits []time.Duration
			v := newJudge(t, Options{Client: fastRetries(url, &waits), Logprobs: true})
			got, err := v.Verify(context.Background(), onePair[:1])
			if c.wantErr == "" {
				require.NoError(t, err)
				require.Len(t, got, 1)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.wantErr)
				assert.False(t, adjudicate.IsTransient(err))
			}
			assert.Equal(t, c.wantTries, srv.Counters.Requests.Load())
			if c.wantWaits != nil {
				assert.Equal(t, c.wantWaits, waits)
			}
		})
	}
}

// The user's query reaches the judge's prompt as context when the pair
// carries one, and the prompt without it is the prompt of a pair without
// a query, byte for byte.
func TestPromptCarriesTheQuery(t *testing.T) {
	srv := remotetest.NewOpenAI("judge-7b", hashJudge)
	url := serve(t, srv)
	v := newJudge(t, Options{Client: fastRetries(url, nil), Logprobs: true, JSONMode: true})
	assert.True(t, v.QueryByDefault(), "the judge reads the query under --verifier-query auto")
	asked := onePair[0]
	asked.Query = "How deep is Lake Orrin?"
	_, err := v.Verify(context.Background(), []adjudicate.Pair{asked, onePair[0]})
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	prompts := map[bool]string{}
	for _, r := range reqs {
		content := r["messages"].([]any)[0].(map[string]any)["content"].(string)
		prompts[strings.Contains(content, "How deep is Lake Orrin?")] = content
	}
	require.Len(t, prompts, 2, "one prompt with the query, one without")
	with, without := prompts[true], prompts[false]
	assert.Contains(t, with, "Claim: Lake Orrin is 18 metres deep.\n\nThe claim comes from an answer to this question (context only: judge the claim, not the answer):\nHow deep is Lake Orrin?\n\nPassages:\n")
	assert.NotContains(t, without, "question")
	assert.Contains(t, without, "Claim: Lake Orrin is 18 metres deep.\n\nPassages:\n", "no query: the prompt as before")
	again, err := v.Prompt(onePair[0])
	require.NoError(t, err)
	assert.Equal(t, without, again)
	// A --prompt template reads it as .Query.
	f := filepath.Join(t.TempDir(), "p.tmpl")
	require.NoError(t, os.WriteFile(f, []byte("C={{.Claim}} Q={{.Query}}"), 0o644))
	custom := newJudge(t, Options{Client: remote.Options{Endpoint: "http://127.0.0.1:1/v1"}, Prompt: f})
	got, err := custom.Prompt(asked)
	require.NoError(t, err)
	assert.Equal(t, "C=Lake Orrin is 18 metres deep. Q=How deep is Lake Orrin?", got)
}
