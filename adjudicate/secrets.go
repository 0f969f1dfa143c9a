package adjudicate

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// Redactor removes secrets from strings, in every form a server can
// echo one back in: raw; URL-encoded (query or path escaping, and any
// %XX escape of any character); base64 (a Basic credential is
// base64("user:password")); and JSON-escaped, including \u escapes of any
// character and escapes of escapes (a JSON string inside a JSON string),
// up to three levels. The zero value removes nothing.
type Redactor struct {
	secrets []string // longest first, so a secret holding another goes whole
}

// maxEscapeLevels is how many layers of JSON or URL escaping Redact sees
// through.
const maxEscapeLevels = 3

// NewRedactor redacts the given secrets and their encoded forms; empty
// ones are ignored.
func NewRedactor(secrets ...string) Redactor {
	seen := map[string]bool{}
	var r Redactor
	for _, s := range secrets {
		if s == "" {
			continue
		}
		b := []byte(s)
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s),
			base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
			base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b)} {
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

// Empty says whether r redacts nothing.
func (r Redactor) Empty() bool { return len(r.secrets) == 0 }

// Redact returns s without any secret, in any of its forms.
func (r Redactor) Redact(s string) string {
	if len(r.secrets) == 0 {
		return s
	}
	for _, x := range r.secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, Redacted)
		}
	}
	if !strings.ContainsAny(s, "\\%") {
		return s
	}
	return r.redactEscaped(s)
}

// RedactBytes is Redact for a body: b itself (no copy) when it holds no
// secret.
func (r Redactor) RedactBytes(b []byte) []byte {
	if len(r.secrets) == 0 {
		return b
	}
	for _, x := range r.secrets {
		if bytes.Contains(b, []byte(x)) {
			b = bytes.ReplaceAll(b, []byte(x), []byte(Redacted))
		}
	}
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '%') < 0 {
		return b
	}
	if red := r.redactEscaped(string(b)); red != string(b) {
		return []byte(red)
	}
	return b
}

// redactEscaped finds secrets written with escapes (JSON's \uXXXX and \X,
// URL's %XX), through up to maxEscapeLevels layers, and replaces the
// escaped text that spells one.
func (r Redactor) redactEscaped(s string) string {
	// cur is s unescaped level times; from and to map each of its bytes
	// to the span of s it came from.
	cur := s
	from, to := make([]int, len(s)), make([]int, len(s))
	for i := range s {
		from[i], to[i] = i, i+1
	}
	type span struct{ a, b int }
	var hits []span
	for level := 0; level < maxEscapeLevels; level++ {
		next, f, t, changed := unescape(cur)
		if !changed {
			break
		}
		for i := range f {
			f[i], t[i] = from[f[i]], to[t[i]-1]
		}
		cur, from, to = next, f, t
		for _, x := range r.secrets {
			for off := 0; ; {
				i := strings.Index(cur[off:], x)
				if i < 0 {
					break
				}
				i += off
				hits = append(hits, span{from[i], to[i+len(x)-1]})
				off = i + len(x)
			}
		}
	}
	if len(hits) == 0 {
		return s
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].a < hits[j].a })
	var b strings.Builder
	last := 0
	for _, h := range hits {
		if h.a < last { // overlapping: extend the previous replacement
			if h.b > last {
				last = h.b
			}
			continue
		}
		b.WriteString(s[last:h.a])
		b.WriteString(Redacted)
		last = h.b
	}
	b.WriteString(s[last:])
	return b.String()
}

// unescape undoes one layer of JSON string escapes (\uXXXX, surrogate
// pairs included, and \" \\ \/ \b \f \n \r \t) and URL escapes (%XX)
// in s; from and to give each output byte's span of s.
func unescape(s string) (out string, from, to []int, changed bool) {
	var b []byte
	emit := func(p []byte, a, z int) {
		for range p {
			from, to = append(from, a), append(to, z)
		}
		b = append(b, p...)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			emit([]byte{byte(v)}, i, i+3)
			i, changed = i+3, true
			continue
		case c == '\\' && i+5 < len(s) && s[i+1] == 'u' && isHex4(s[i+2:i+6]):
			v, _ := strconv.ParseUint(s[i+2:i+6], 16, 32)
			rn, end := rune(v), i+6
			if utf16.IsSurrogate(rn) && end+5 < len(s) && s[end] == '\\' && s[end+1] == 'u' && isHex4(s[end+2:end+6]) {
				lo, _ := strconv.ParseUint(s[end+2:end+6], 16, 32)
				if d := utf16.DecodeRune(rn, rune(lo)); d != utf8.RuneError {
					rn, end = d, end+6
				}
			}
			emit(utf8.AppendRune(nil, rn), i, end)
			i, changed = end, true
			continue
		case c == '\\' && i+1 < len(s):
			if d, ok := jsonEscapes[s[i+1]]; ok {
				emit([]byte{d}, i, i+2)
				i, changed = i+2, true
				continue
			}
		}
		emit([]byte{c}, i, i+1)
		i++
	}
	return string(b), from, to, changed
}

var jsonEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isHex4(s string) bool { return isHex(s[0]) && isHex(s[1]) && isHex(s[2]) && isHex(s[3]) }

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
