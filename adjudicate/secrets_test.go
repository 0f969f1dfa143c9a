package adjudicate_test

import (
	"errors"
	"io/fs"
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
