package benchdata

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/corpus"
	"github.com/claimaudit/claimaudit/extract"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allFiles = []string{CorpusFile, SpansFile, ClaimsFile, GoldFile, OutputsFile, ManifestFile}

func gen(t *testing.T, seed uint64, n int) (string, *Manifest) {
	t.Helper()
	dir := t.TempDir()
	m, err := Generate(context.Background(), dir, Options{Claims: n, Seed: seed})
	require.NoError(t, err)
	return dir, m
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, _ := gen(t, 42, 500)
	b, _ := gen(t, 42, 500)
	c, _ := gen(t, 43, 500)
	for _, f := range allFiles {
		fa, err := os.ReadFile(filepath.Join(a, f))
		require.NoError(t, err)
		fb, err := os.ReadFile(filepath.Join(b, f))
		require.NoError(t, err)
		fc, err := os.ReadFile(filepath.Join(c, f))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(fa, fb), "%s: same seed, same bytes", f)
		assert.False(t, bytes.Equal(fa, fc), "%s: another seed, other data", f)
	}
}

func TestGenerateCoversLabelsAndTypes(t *testing.T) {
	dir, m := gen(t, 1, 2000)
	for _, l := range []string{"supported", "unsupported", "insufficient"} {
		assert.Greater(t, m.Labels[l], 300, l)
	}
	assert.GreaterOrEqual(t, len(m.Types), 4, "types %v", m.Types)
	for _, v := range []string{"supported/abbr", "supported/qualified", "supported/range", "supported/percent-word",
		"unsupported/changed-value", "unsupported/swapped-entity", "unsupported/wrong-year", "unsupported/negation", "unsupported/antonym",
		"insufficient/absent-entity", "insufficient/absent-attribute", "insufficient/missing-timeframe", "insufficient/hedged"} {
		assert.Positive(t, m.Variants[v], v)
	}
	// What it writes is valid input for every command.
	c, err := corpus.Load(context.Background(), filepath.Join(dir, CorpusFile), filepath.Join(dir, SpansFile), corpus.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, m.Docs, len(c.Docs))
	assert.Equal(t, m.Spans, len(c.Spans))
	cs, err := claims.Load(context.Background(), filepath.Join(dir, ClaimsFile), filepath.Join(dir, GoldFile))
	require.NoError(t, err)
	require.Len(t, cs, 2000)
	for _, x := range cs {
		require.NotEmpty(t, x.Label)
		require.NotEmpty(t, x.SourceID)
	}
	var outs int
	f, err := os.Open(filepath.Join(dir, OutputsFile))
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, extract.ReadOutputs(context.Background(), f, OutputsFile, func(extract.Output) error { outs++; return nil }))
	assert.Equal(t, m.Outputs, outs)
}

func TestGenerateRejectsBadOptions(t *testing.T) {
	_, err := Generate(context.Background(), t.TempDir(), Options{Claims: 0})
	assert.Error(t, err)
	_, err = Generate(context.Background(), t.TempDir(), Options{Claims: 5, Mix: [3]float64{-1, 1, 1}})
	assert.Error(t, err)
}

func BenchmarkGenerate100k(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(context.Background(), b.TempDir(), Options{Claims: 100000, Docs: 10000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// Rule cases come after the set they are added to, which stays the same
// byte for byte, and each kind is there.
func TestRuleCasesLeaveTheRestAlone(t *testing.T) {
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	if _, err := Generate(ctx, a, Options{Claims: 120, Docs: 60, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	m, err := Generate(ctx, b, Options{Claims: 120, Docs: 60, Seed: 7, RuleCases: 12})
	if err != nil {
		t.Fatal(err)
	}
	if m.Claims != 132 {
		t.Errorf("claims %d, want 132", m.Claims)
	}
	for _, k := range ruleCaseKinds {
		n := 0
		for v, c := range m.Variants {
			if strings.HasSuffix(v, "/"+k) {
				n += c
			}
		}
		if n != 2 {
			t.Errorf("variant %s: %d claims, want 2", k, n)
		}
	}
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, f := range []string{ClaimsFile, GoldFile, CorpusFile} {
		if !strings.HasPrefix(read(b, f), read(a, f)) {
			t.Errorf("%s: the set without rule cases is not a prefix of the one with", f)
		}
	}
}
