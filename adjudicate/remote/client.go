// Package remote is what the remote verifier backends (triton, tei,
// openai) share: an HTTP client for a serving engine with bounded
// concurrency, per-request timeouts, retries with exponential backoff and
// jitter for retryable failures only (connection errors, timeouts, 408, 429
// and 5xx but 501/505), Retry-After, a request-rate limit, TLS with a custom
// CA, and a secret (an API key) that never appears in an error; and the
// rule by which pair-scoring backends pick each claim's deciding passage.
//
// Retries live here, not in the scheduler: a failure that is still there
// after the last retry is returned unmarked (not adjudicate.Transient), so
// the scheduler does not multiply the attempts; the batch's claims get
// error rows.
package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/userfile"
)

// Defaults of the client options.
const (
	DefaultTimeout     = 60 * time.Second
	DefaultRetries     = 4
	DefaultBackoff     = 250 * time.Millisecond
	DefaultMaxBackoff  = 10 * time.Second
	DefaultMaxInflight = 8
	// MaxRetryAfter caps the wait a server may ask for with Retry-After.
	MaxRetryAfter = 60 * time.Second
	// maxBody bounds a response body read into memory.
	maxBody = 64 << 20
)

// Options configure a Client.
type Options struct {
	Endpoint    string        // base URL, e.g. http://triton:8000
	Timeout     time.Duration // per attempt, the body read included
	Retries     int           // retries after the first attempt of a retryable failure
	Backoff     time.Duration // first retry delay (doubling, jittered)
	MaxBackoff  time.Duration // cap of the computed delay
	MaxRPS      float64       // requests started per second, across all callers (0: no limit)
	MaxInflight int           // requests in flight at once, across all callers
	CACert      string        // PEM file of CA certificates trusted beside the system's
	// Secret is sent as "Authorization: Bearer <Secret>" when not empty and
	// is scrubbed from every error the client returns.
	Secret string
	// Sleep waits d or until ctx is done (tests record the waits instead).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Flags declares the client options on fs with the names every remote
// backend shares (one command-line flag sets them for whichever backend is
// chosen), and returns o for the Factory to read once fs is parsed.
func Flags(fs *flag.FlagSet) *Options {
	o := &Options{}
	ClientFlags(fs, o, "", "remote verifiers")
	return o
}

// Client talks JSON over HTTP to one server. Safe for concurrent use.
type Client struct {
	base   *url.URL
	o      Options
	red    adjudicate.Redactor
	http   *http.Client
	slots  chan struct{}
	rate   *limiter
	jitMu  sync.Mutex
	jitter *rand.Rand
}

// New checks the options and makes a client. It sends nothing.
func New(o Options) (*Client, error) {
	if o.Endpoint == "" {
		return nil, errors.New("--endpoint URL is required")
	}
	u, err := url.Parse(o.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--endpoint %q is not an http:// or https:// URL", redactURL(o.Endpoint))
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	if o.Timeout < 0 {
		return nil, fmt.Errorf("--request-timeout %s is negative", o.Timeout)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Retries < 0 {
		return nil, fmt.Errorf("--max-retries %d is negative", o.Retries)
	}
	if o.MaxInflight <= 0 {
		o.MaxInflight = DefaultMaxInflight
	}
	if o.MaxRPS < 0 {
		return nil, fmt.Errorf("--max-rps %g is negative", o.MaxRPS)
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = o.MaxInflight
	if o.CACert != "" {
		pem, err := userfile.ReadFile(o.CACert, userfile.MaxSmall)
		if err != nil {
			return nil, fmt.Errorf("--ca-cert: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-cert %s: no PEM certificate in it", o.CACert)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	c := &Client{base: u, o: o, http: &http.Client{Transport: tr, CheckRedirect: sameOriginCredentials}, slots: make(chan struct{}, o.MaxInflight),
		jitter: rand.New(rand.NewPCG(1, 2))}
	c.red = adjudicate.NewRedactor(c.Secrets()...)
	if o.MaxRPS > 0 {
		c.rate = &limiter{interval: time.Duration(float64(time.Second) / o.MaxRPS), now: time.Now}
	}
	return c, nil
}

// Secrets are what the client must never show: the bearer secret and the
// endpoint's user information (its password, and user:password whole).
func (c *Client) Secrets() []string {
	var out []string
	if c.o.Secret != "" {
		out = append(out, c.o.Secret)
	}
	if u := c.base.User; u != nil {
		if pw, ok := u.Password(); ok && pw != "" {
			// user:password is what a Basic credential encodes.
			out = append(out, pw, u.String())
			if raw := u.Username() + ":" + pw; raw != u.String() {
				out = append(out, raw)
			}
		}
	}
	// A query's values may be tokens (?api_key=…): all of them but the
	// shortest, which would redact ordinary words.
	for _, vs := range c.base.Query() {
		for _, v := range vs {
			if len(v) >= 6 {
				out = append(out, v)
			}
		}
	}
	return out
}

// Redact removes the client's secrets from s.
func (c *Client) Redact(s string) string { return c.red.Redact(s) }

// sameOriginCredentials follows a redirect (at most 10) but never carries
// the Authorization header to another origin (scheme, host and port): Go
// keeps it for the same host on another port.
func sameOriginCredentials(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		req.Header.Del("Authorization")
	}
	return nil
}

// Endpoint is the base URL without user information, for versions and
// messages.
func (c *Client) Endpoint() string { return redactURL(c.base.String()) }

// Close releases idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// StatusError is a response with a non-2xx status.
type StatusError struct {
	Method, URL string
	Status      int
	Body        string // the start of the body, secret scrubbed
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// ErrBadResponse marks a response that arrived whole but could not be
// read as the protocol's JSON: not retried (the server would say the same).
var ErrBadResponse = errors.New("malformed response")

// GetJSON sends GET path and decodes the JSON answer into out.
func (c *Client) GetJSON(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, nil, out)
}

// PostJSON sends in as JSON to path and decodes the JSON answer into out.
func (c *Client) PostJSON(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	return c.do(ctx, http.MethodPost, path, body, out)
}

// PostJSONCounted is PostJSON that also says how many times the request
// was retried (0 when the first attempt answered), for usage accounting.
func (c *Client) PostJSONCounted(ctx context.Context, path string, in, out any) (retries int, err error) {
	body, err := json.Marshal(in)
	if err != nil {
		return 0, fmt.Errorf("encode request: %w", err)
	}
	err = c.doCounted(ctx, http.MethodPost, path, body, out, &retries)
	return retries, err
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var retries int
	return c.doCounted(ctx, method, path, body, out, &retries)
}

// doCounted sends the request, retrying retryable failures, and counts
// the retries in *retries.
func (c *Client) doCounted(ctx context.Context, method, path string, body []byte, out any, retries *int) error {
	target := c.target(path)
	shown := redactURL(target)
	var last error
	for attempt := 0; ; attempt++ {
		*retries = attempt
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, retryAfter, err := c.attempt(ctx, method, target, body)
		if err == nil {
			if out == nil {
				return nil
			}
			if err := c.decode(raw, out); err != nil {
				return c.scrub(fmt.Errorf("%s %s: %w: %v (body starts %q)", method, shown, ErrBadResponse, err, snippet(raw)))
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var a *attemptError
		if !errors.As(err, &a) {
			return c.scrub(fmt.Errorf("%s %s: %w", method, shown, err))
		}
		last = a.err
		if !a.retryable {
			return c.scrub(last)
		}
		if attempt >= c.o.Retries {
			return c.scrub(fmt.Errorf("%w (gave up after %d attempts)", last, attempt+1))
		}
		wait := retryAfter
		if wait <= 0 {
			wait = c.backoff(attempt)
		}
		if err := c.o.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// target is the URL of path under the endpoint: the path joins the base
// path, and the endpoint's query (a token some gateways take there) stays
// the query.
func (c *Client) target(path string) string {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawPath = ""
	return u.String()
}

// decode reads a JSON answer into out. With secrets to hide, every string
// of the answer is redacted after the JSON is decoded (an echo spelt with
// \u escapes is only the key once decoded) and then, being text a caller
// may decode again (a judge's JSON answer inside "content"), through the
// escapes it still holds.
func (c *Client) decode(raw []byte, out any) error {
	if c.red.Empty() {
		return json.Unmarshal(raw, out)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("invalid character after top-level value")
	}
	clean, err := json.Marshal(c.redactValue(v))
	if err != nil {
		return err
	}
	return json.Unmarshal(clean, out)
}

// redactValue redacts every string (keys included) of a decoded JSON value.
func (c *Client) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return c.red.Redact(x)
	case []any:
		for i := range x {
			x[i] = c.redactValue(x[i])
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[c.red.Redact(k)] = c.redactValue(e)
		}
		return m
	}
	return v
}

// attemptError is one attempt's failure and whether to try again.
type attemptError struct {
	err       error
	retryable bool
}

func (e *attemptError) Error() string { return e.err.Error() }

func (c *Client) attempt(ctx context.Context, method, target string, body []byte) ([]byte, time.Duration, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	defer func() { <-c.slots }()
	if c.rate != nil {
		if err := c.rate.wait(ctx, c.o.Sleep); err != nil {
			return nil, 0, err
		}
	}
	actx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, target, rd)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.o.Secret != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.Secret)
	}
	shown := redactURL(target)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, &attemptError{err: fmt.Errorf("%s %s: %w", method, shown, transportCause(err, actx, c.o.Timeout)), retryable: ctx.Err() == nil}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		// The connection broke mid-body (a truncated response): retryable.
		return nil, 0, &attemptError{err: fmt.Errorf("%s %s: read response: %w", method, shown, transportCause(err, actx, c.o.Timeout)), retryable: ctx.Err() == nil}
	}
	if len(raw) > maxBody {
		return nil, 0, &attemptError{err: fmt.Errorf("%s %s: response larger than %d MiB", method, shown, maxBody>>20)}
	}
	// A server may echo what it was sent (the Authorization header): the
	// whole body loses the secrets once, before it is decoded or cut, so no
	// string read from it (a judge's reason, an error body) can carry one
	// or a prefix of one. "[redacted]" keeps a JSON string valid.
	raw = c.red.RedactBytes(raw)
	if resp.StatusCode/100 == 2 {
		return raw, 0, nil
	}
	se := &StatusError{Method: method, URL: shown, Status: resp.StatusCode, Body: snippet(raw)}
	return nil, parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()), &attemptError{err: se, retryable: Retryable(resp.StatusCode)}
}

// Retryable reports whether a status is worth another attempt: 408, 429 and
// 5xx except 501 (not implemented) and 505 (HTTP version).
func Retryable(status int) bool {
	switch {
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests:
		return true
	case status == http.StatusNotImplemented, status == http.StatusHTTPVersionNotSupported:
		return false
	}
	return status >= 500 && status <= 599
}

// transportCause names a per-attempt timeout as such.
func transportCause(err error, actx context.Context, limit time.Duration) error {
	var ne net.Error
	if errors.Is(actx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("no complete answer within --request-timeout %s: %w", limit, err)
	}
	return err
}

// backoff is the delay before retry attempt+1: Backoff·2^attempt capped at
// MaxBackoff, with "equal jitter" (uniform in its upper half) so that
// clients that failed together do not retry together.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.o.Backoff << min(attempt, 30)
	if d <= 0 || d > c.o.MaxBackoff {
		d = c.o.MaxBackoff
	}
	c.jitMu.Lock()
	j := time.Duration(c.jitter.Int64N(int64(d/2) + 1))
	c.jitMu.Unlock()
	return d/2 + j
}

// parseRetryAfter reads delta-seconds or an HTTP date (RFC 9110 §10.2.3),
// capped at MaxRetryAfter; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0
	}
	if d < 0 {
		return 0
	}
	// A zero delay from the header still means "retry now", not "use the backoff".
	if d == 0 {
		return time.Nanosecond
	}
	return min(d, MaxRetryAfter)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// limiter spaces request starts at least interval apart.
type limiter struct {
	mu       sync.Mutex
	next     time.Time
	interval time.Duration
	now      func() time.Time
}

func (l *limiter) wait(ctx context.Context, sleepFn func(context.Context, time.Duration) error) error {
	l.mu.Lock()
	now := l.now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		return sleepFn(ctx, d)
	}
	return nil
}

// scrub removes the secrets from an error's whole text (a transport error
// may quote what it was sent); errors.Is/As still see the chain.
func (c *Client) scrub(err error) error { return c.red.Error(err) }

// snippet is the start of a body (already redacted), whitespace joined.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// RedactURL drops user information (user:password@) from a URL.
func RedactURL(s string) string { return redactURL(s) }

// redactURL drops user information (user:password@) from a URL, and the
// values of its query (a token some gateways take there).
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		// Shown as typed, less anything up to an "@" (user information)
		// and the query.
		if i := strings.LastIndex(s, "@"); i >= 0 {
			s = "…@" + s[i+1:]
		}
		if i := strings.IndexByte(s, '?'); i >= 0 {
			s = s[:i] + "?…"
		}
		return s
	}
	u.User = nil
	q := u.RawQuery
	u.RawQuery = ""
	out := u.String()
	if i := strings.LastIndex(out, "@"); i >= 0 {
		// Not an http URL ("user:pw@host" reads as scheme "user"): what
		// stands before an "@" may still be a password.
		out = "…@" + out[i+1:]
	}
	if q != "" {
		var parts []string
		for _, kv := range strings.Split(q, "&") {
			k, _, ok := strings.Cut(kv, "=")
			if ok {
				k += "=" + adjudicate.Redacted
			}
			parts = append(parts, k)
		}
		out += "?" + strings.Join(parts, "&")
	}
	return out
}
