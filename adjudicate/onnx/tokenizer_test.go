package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exported Tokenizer (what a remote client of the same model sends)
// gives the reference ids, as the verifier's own encoder does; it needs no
// ONNX Runtime.
func TestTokenizerMatchesReference(t *testing.T) {
	tk, err := LoadTokenizer(tiny)
	require.NoError(t, err)
	ref := loadReference(t)
	for i, p := range ref.Pairs {
		// The reference encodes (p[0], p[1]) in that order: p[0] is the first
		// sequence, as the passage is in EncodePair.
		ids, types, err := tk.EncodePair(p[1], p[0])
		require.NoError(t, err)
		assert.Equal(t, ref.InputIDs[i], ids, "pair %d %q", i, p)
		assert.Equal(t, ref.Types[i], types, "pair %d", i)
	}
	assert.Positive(t, tk.MaxLen())
	_, err = LoadTokenizer(t.TempDir())
	assert.Error(t, err)
}
