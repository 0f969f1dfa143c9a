package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/jsonl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAll(t *testing.T, name, content, split string) ([]Output, error) {
	t.Helper()
	var outs []Output
	err := ReadInput(context.Background(), strings.NewReader(content), name, split, func(o Output) error {
		outs = append(outs, o)
		return nil
	})
	return outs, err
}

func TestOutputsFileFields(t *testing.T) {
	outs, err := readAll(t, "o.jsonl", `{"id": "a", "text": "x", "query": "q?", "query_id": "q1", "attempt": 0, "cites": ["d1"]}
{"output_id": "b", "text": "y", "query_id": "q1", "attempt": 1}
{"id": "c", "text": "z"}
`, "")
	require.NoError(t, err)
	require.Len(t, outs, 3)
	assert.Equal(t, Output{ID: "a", Text: "x", Query: "q?", QueryID: "q1", Attempt: 0, HasAttempt: true, Cites: []string{"d1"}, Line: 1}, outs[0])
	assert.Equal(t, "b", outs[1].ID, "output_id is the other spelling of id")
	assert.Equal(t, 1, outs[1].Attempt)
	assert.False(t, outs[2].HasAttempt)
}

func TestOutputsFileDefects(t *testing.T) {
	for _, c := range []struct{ line, field, want string }{
		{`{"id": "a", "output_id": "a", "text": "x"}`, "output_id", "not both"},
		{`{"id": "a", "text": "x", "attempt": -1}`, "attempt", "want 0 or more"},
		{`{"id": "a", "text": "x", "attempt": 1.5}`, "attempt", "expected integer"},
		{`{"id": "a", "text": "x", "cites": ["d1", " "]}`, "cites", "must not be empty"},
		{`{"id": "a", "text": "x", "attempts": 1}`, "attempts", "unknown field"},
		{`{"text": "x"}`, "id", "missing"},
	} {
		_, err := readAll(t, "o.jsonl", c.line+"\n", "")
		require.Error(t, err, c.line)
		assert.Contains(t, err.Error(), "o.jsonl:1:", c.line)
		assert.Contains(t, err.Error(), c.field, c.line)
		assert.Contains(t, err.Error(), c.want, c.line)
	}
	_, err := readAll(t, "o.jsonl", `{"id": "a", "text": "x", "query_id": "q", "attempt": 1}
{"id": "b", "text": "y", "query_id": "q", "attempt": 1}
`, "")
	require.ErrorIs(t, err, jsonl.ErrDuplicateID)
	assert.Contains(t, err.Error(), "o.jsonl:2:")
	assert.Contains(t, err.Error(), `query "q" has attempt 1 already (line 1)`)
}

func TestTextInputs(t *testing.T) {
	text := "The Eiffel Tower is in Paris. It opened in 1889.\n\n\nThe fee is $150.\r\n  \r\nThanks!\n"
	outs, err := readAll(t, "answers/reply.txt", text, "")
	require.NoError(t, err)
	require.Len(t, outs, 1)
	assert.Equal(t, "reply", outs[0].ID)
	outs, err = readAll(t, "answers/reply.txt", text, SplitParagraphs)
	require.NoError(t, err)
	require.Len(t, outs, 3)
	assert.Equal(t, []string{"reply-1", "reply-2", "reply-3"}, []string{outs[0].ID, outs[1].ID, outs[2].ID})
	assert.Equal(t, "The fee is $150.", outs[1].Text)
	_, err = readAll(t, "empty.md", " \n\n", "")
	require.ErrorIs(t, err, jsonl.ErrEmpty)
	_, err = readAll(t, "bad.txt", "\xff\xfe", "")
	require.ErrorIs(t, err, jsonl.ErrEncoding)
	_, err = readAll(t, "o.jsonl", `{"id": "a", "text": "x"}`, SplitParagraphs)
	require.Error(t, err, "paragraphs split a text input only")
	_, err = readAll(t, "o.txt", "x", "sentences")
	require.Error(t, err)

	// Through ExtractFile: a text file's claims carry its name as source.
	dir := t.TempDir()
	in := filepath.Join(dir, "reply.txt")
	require.NoError(t, os.WriteFile(in, []byte(text), 0o644))
	out := filepath.Join(dir, "claims.jsonl")
	st, err := ExtractFile(context.Background(), in, out, ExtractOptions{Split: SplitParagraphs})
	require.NoError(t, err)
	assert.Equal(t, 3, st.Outputs)
	assert.Equal(t, 3, st.Claims)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"source_id":"reply-2","text":"The fee is $150."`)
}

// The output's cites join every claim's anchors.
func TestOutputCites(t *testing.T) {
	cs := Extract(Output{ID: "o", Text: "Paris is in France [cite:d1]. Rome is in Italy.", Cites: []string{"d9", "d1"}}, ExtractOptions{}, nil)
	require.Len(t, cs, 2)
	assert.Equal(t, []string{"d1", "d9"}, cs[0].Cite)
	assert.Equal(t, []string{"d9", "d1"}, cs[1].Cite)
}

type fakeFacts map[string][]string

func (f fakeFacts) Facts(_ context.Context, text, _ string) ([]string, error) {
	if facts, ok := f[text]; ok {
		return facts, nil
	}
	return nil, errors.New("the extractor's answer is not the required JSON")
}

// An LLM's facts become typed claims; an output it fails on is an error
// entry with its line, and the other outputs' claims are written.
func TestExtractWithFactSource(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "o.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(`{"id": "a", "text": "The Eiffel Tower is in Paris and opened in 1889."}
{"id": "b", "text": "broken"}
{"id": "c", "text": "Thanks!"}
`), 0o644))
	src := fakeFacts{"The Eiffel Tower is in Paris and opened in 1889.": {"The Eiffel Tower is in Paris", "The Eiffel Tower opened in 1889 [cite:d2]."},
		"Thanks!": {}}
	out := filepath.Join(dir, "claims.jsonl")
	st, err := ExtractFile(context.Background(), in, out, ExtractOptions{Source: src, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, 3, st.Outputs)
	assert.Equal(t, 2, st.Claims)
	assert.Equal(t, []OutputError{{ID: "b", Line: 2, Error: "the extractor's answer is not the required JSON"}}, st.Errors)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"text":"The Eiffel Tower is in Paris."`)
	assert.Contains(t, lines[1], `"type":"temporal"`)
	assert.Contains(t, lines[1], `"cite":["d2"]`)
}

// Imperatives by shape, and the nouns before a preposition that are not.
func TestImperativeShape(t *testing.T) {
	texts := func(s string) []string {
		var out []string
		for _, c := range Extract(Output{ID: "o", Text: s}, ExtractOptions{}, nil) {
			out = append(out, c.Text)
		}
		return out
	}
	assert.Empty(t, texts("Close the door. Turn left at the station. Fill in the form. Never share your password. Bring your passport."))
	assert.Equal(t, []string{"Nitrate in Elquasu Lake averaged 4.1 mg/L in 2022.", "Revenue in the first quarter rose 5%."},
		texts("Nitrate in Elquasu Lake averaged 4.1 mg/L in 2022. Revenue in the first quarter rose 5%."))
}
