package jsonl

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24 case 22: files joined with cat keep each one's byte-order mark
// at the start of a later line; it is not "invalid character 'ï'".
func TestBOMAtTheStartOfAnyLine(t *testing.T) {
	in := "\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBF{\"a\":2}\r\n"
	var errs ErrorList
	var got []int
	n, err := Each(context.Background(), strings.NewReader(in), "f.jsonl", 0, &errs, func(r Record) {
		v, _ := r.Int("a")
		got = append(got, v)
	})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Zero(t, errs.Total, "%v", errs.Errors)
	assert.Equal(t, []int{1, 2}, got)
}

// endless is a line without end: text bytes and no newline.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// Issue 24 case 18: a line without end (after a first line of text: a
// first line that is not text or passes the cap stops at once) is read until
// ctx is done, then Each returns ctx's error: cancellation is checked
// inside a line, not only between lines.
func TestCancelInsideAnEndlessLine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Each(ctx, io.MultiReader(strings.NewReader("{}\n"), endless{}), "endless", 1<<20, &ErrorList{}, func(Record) {})
		done <- err
	}()
	select {
	case err := <-done:
		assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("Each did not stop after its context was done")
	}
}

// Issue 24 case 9: a string holding a lone surrogate escape ("x\ud800")
// is an encoding error naming the escape, not a value silently read as
// "x\uFFFD"; a proper pair (an emoji) is text.
func TestLoneSurrogateIsAnError(t *testing.T) {
	for in, want := range map[string]string{
		`{"id":"x\ud800"}`:         `\ud800`,
		`{"id":"x\udc00y"}`:        `\udc00`,
		`{"id":"\ud83d\u0041"}`:    `\ud83d`,
		`{"id":"x\uD800"}`:         `\uD800`,
		`{"id":"\ud83d\ude00 ok"}`: "",
		`{"id":"\\ud800 is text"}`: "",
	} {
		var errs ErrorList
		rec, ok := ParseRecord("f", 1, []byte(in), &errs)
		require.True(t, ok, in)
		s, ok := rec.Str("id", true, true)
		if want == "" {
			assert.True(t, ok, in)
			assert.NotContains(t, s, "\uFFFD")
			continue
		}
		assert.False(t, ok, in)
		require.Len(t, errs.Errors, 1, in)
		assert.ErrorIs(t, errs.Errors[0], ErrEncoding)
		assert.Contains(t, errs.Errors[0].Error(), want)
	}
}
