package adjudicate

import (
	"bytes"
	"net/url"
	"sort"
	"strings"
)

// SecretHolder is a verifier that holds secrets (an API key, the password
// of an endpoint's user information). A run redacts every one of them from
// every string it writes — records, reports, errors, logs — with one
// Redactor, applied to whole strings (after joining, before any
// truncation).
type SecretHolder interface {
	Secrets() []string
}

// Redacted replaces a secret in text.
const Redacted = "[redacted]"

// Redactor removes secrets from strings. The zero value removes nothing.
type Redactor struct {
	secrets []string // longest first, so a secret holding another goes whole
}

// NewRedactor redacts the given secrets and their URL-escaped forms;
// empty ones are ignored.
func NewRedactor(secrets ...string) Redactor {
	seen := map[string]bool{}
	var r Redactor
	for _, s := range secrets {
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			if form != "" && !seen[form] {
				seen[form] = true
				r.secrets = append(r.secrets, form)
			}
		}
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// SecretsOf is v's secrets when it is a SecretHolder.
func SecretsOf(v Verifier) []string {
	if h, ok := v.(SecretHolder); ok {
		return h.Secrets()
	}
	return nil
}

// Redact returns s without any secret.
func (r Redactor) Redact(s string) string {
	for _, x := range r.secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, Redacted)
		}
	}
	return s
}

// RedactBytes is Redact for a body: b itself (no copy) when it holds no
// secret.
func (r Redactor) RedactBytes(b []byte) []byte {
	for _, x := range r.secrets {
		if bytes.Contains(b, []byte(x)) {
			b = bytes.ReplaceAll(b, []byte(x), []byte(Redacted))
		}
	}
	return b
}

// Error returns err with its text redacted; errors.Is and errors.As still
// see the original chain.
func (r Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := r.Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
