package adjudicate_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/stretchr/testify/assert"
)

func TestRedactor(t *testing.T) {
	r := adjudicate.NewRedactor("sk-abc/def", "", "pw")
	assert.Equal(t, "key [redacted] url [redacted] q [redacted] and [redacted]", r.Redact("key sk-abc/def url sk-abc%2Fdef q sk-abc%2Fdef and pw"))
	b := []byte("nothing secret")
	assert.Same(t, &b[0], &r.RedactBytes(b)[0], "no copy without a secret")
	assert.Equal(t, "a [redacted] b", string(r.RedactBytes([]byte("a sk-abc/def b"))))
	err := r.Error(&fs.PathError{Op: "open", Path: "sk-abc/def", Err: fs.ErrNotExist})
	assert.Equal(t, "open [redacted]: file does not exist", err.Error())
	assert.True(t, errors.Is(err, fs.ErrNotExist), "the chain is kept")
	assert.Nil(t, r.Error(nil))
	var zero adjudicate.Redactor
	assert.Equal(t, "sk-abc/def", zero.Redact("sk-abc/def"))
}

// Every form a server can echo a secret in is redacted: JSON \u escapes
// (of any character, and escapes of escapes), URL escapes of any
// character, base64 (a Basic credential), and mixtures.
func TestRedactorSeesThroughEncodings(t *testing.T) {
	key := "sk-Secret/42"
	r := adjudicate.NewRedactor(key, "alice:PW")
	uesc := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			fmt.Fprintf(&b, `\u%04x`, c)
		}
		return b.String()
	}
	for name, in := range map[string]string{
		"raw":                  "x " + key + " y",
		"all \\u":              `{"reason":"x ` + uesc(key) + ` y"}`,
		"one \\u":              `{"reason":"x \u0073k-Secret\/42 y"}`,
		"escaped twice":        `{"content":"{\"reason\":\"x \\u0073k-Secret\\/42 y\"}"}`,
		"escaped three times":  `"{\"c\":\"{\\\"r\\\":\\\"x \\\\u0073k-Secret/42 y\\\"}\"}"`,
		"surrogate-free upper": `x \u0053\u004B`,
		"all %XX":              "x %73%6b%2d%53%65%63%72%65%74%2f%34%32 y",
		"query escaped":        "x " + url.QueryEscape(key) + " y",
		"base64 basic":         "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("alice:PW")),
		"base64 key":           "x " + base64.StdEncoding.EncodeToString([]byte(key)),
	} {
		got := r.Redact(in)
		if name == "surrogate-free upper" {
			assert.Equal(t, in, got, "not a secret: unchanged")
			continue
		}
		assert.Contains(t, got, adjudicate.Redacted, name)
		assert.NotContains(t, got, key, name)
		assert.NotContains(t, got, `u0073k-Secret`, name)
		assert.NotContains(t, got, "Secret", name)
		assert.Equal(t, got, string(r.RedactBytes([]byte(in))), name)
	}
	// Text around a secret is kept; text without one is the same string.
	assert.Equal(t, `{"reason":"x [redacted] y"}`, r.Redact(`{"reason":"x `+uesc(key)+` y"}`))
	assert.Equal(t, `a \n b %41`, r.Redact(`a \n b %41`))
}
