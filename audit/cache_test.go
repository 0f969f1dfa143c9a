package audit

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// hashVerifier answers from a hash of the claim and counts its calls.
type hashVerifier struct{ calls atomic.Int64 }

func (h *hashVerifier) Verify(_ context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(batch))
	for i, p := range batch {
		h.calls.Add(1)
		f := fnv.New64a()
		f.Write([]byte(p.Claim))
		x := f.Sum64()
		out[i] = adjudicate.Verdict{Logits: [3]float64{float64(x%97) / 10, float64(x%89) / 10, float64(x%83) / 10}, Rationale: p.Claim}
	}
	return out, nil
}

func cachePairs(n int) []adjudicate.Pair {
	ps := make([]adjudicate.Pair, n)
	for i := range ps {
		ps[i] = adjudicate.Pair{ClaimID: fmt.Sprint(i), Claim: fmt.Sprintf("claim number %d says something", i),
			Passages: []adjudicate.Passage{{ID: fmt.Sprintf("p%d", i), Text: "a passage", Score: 1.5}}}
	}
	return ps
}

// TestCacheSurvivesDamage flips bytes of a filled cache file and truncates
// it: opening and reading it never panics and never gives a verdict other
// than the verifier's; the damage is a warning.
func TestCacheSurvivesDamage(t *testing.T) {
	pairs := cachePairs(300)
	want, _ := (&hashVerifier{}).Verify(context.Background(), pairs)
	base := filepath.Join(t.TempDir(), "verdicts.db")
	c, err := OpenCache(base, nil)
	require.NoError(t, err)
	_, err = WithCache(&hashVerifier{}, c).Verify(context.Background(), pairs)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	good, err := os.ReadFile(base)
	require.NoError(t, err)

	rng := rand.New(rand.NewPCG(18, 1))
	type mutation struct {
		name string
		fn   func([]byte) []byte
	}
	var cases []mutation
	cases = append(cases, mutation{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }},
		mutation{"truncated to 100 bytes", func(b []byte) []byte { return b[:100] }},
		mutation{"empty", func(b []byte) []byte { return nil }})
	for i := 0; i < 40; i++ {
		off := rng.IntN(len(good))
		if i < 16 {
			off = rng.IntN(80) // the meta pages' headers
		}
		cases = append(cases, mutation{fmt.Sprintf("byte %d flipped", off), func(b []byte) []byte { b[off] ^= 0xff; return b }})
	}
	for i := 0; i < 10; i++ {
		page := rng.IntN(len(good) / 4096)
		cases = append(cases, mutation{fmt.Sprintf("8 bytes of page %d flipped", page), func(b []byte) []byte {
			for k := 0; k < 8; k++ {
				b[page*4096+16+k] ^= 0xa5
			}
			return b
		}})
	}
	damaged := 0
	for _, m := range cases {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, outdir.MarkOwned(dir)) // the tool's cache folder
			path := filepath.Join(dir, "verdicts.db")
			require.NoError(t, os.WriteFile(path, m.fn(bytes.Clone(good)), 0o644))
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			c, err := OpenCache(path, log)
			require.NoError(t, err, "a damaged cache is replaced, not an error")
			inner := &hashVerifier{}
			v := WithCache(inner, c)
			got, err := v.Verify(context.Background(), pairs)
			require.NoError(t, err)
			assert.Equal(t, want, got, "a damaged cache never changes a verdict")
			// A second pass reads what the first wrote back.
			got, err = v.Verify(context.Background(), pairs)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			require.NoError(t, c.Close())
			// Damage either costs verdicts (verified again; a flipped key
			// is just a miss) or is reported; it never changes one.
			if inner.calls.Load() > 0 {
				damaged++
			}
		})
	}
	t.Logf("%d of %d mutations cost cached verdicts", damaged, len(cases))
}

// Issue 24 case 4: a file named verdicts.db in a folder the tool did not
// make is not replaced when it is not a cache: the command stops, the file
// is left as it is.
func TestForeignVerdictsDBIsNotReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verdicts.db")
	require.NoError(t, os.WriteFile(path, []byte("my notes"), 0o644))
	_, err := OpenCache(path, nil)
	assert.ErrorIs(t, err, outdir.ErrNotOurs)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "my notes", string(b))
}

func TestCacheChecksumCatchesEditedValue(t *testing.T) {
	pairs := cachePairs(3)
	path := filepath.Join(t.TempDir(), "verdicts.db")
	c, err := OpenCache(path, nil)
	require.NoError(t, err)
	v := WithCache(&hashVerifier{}, c).(*cachedVerifier)
	want, err := v.Verify(context.Background(), pairs)
	require.NoError(t, err)
	// Store a verdict that is well-formed but not the one the key's
	// checksum covers: an edited value.
	key := cacheKey(v.version, pairs[1])
	raw, err := encodeValue(key, adjudicate.Verdict{Logits: [3]float64{9, 0, 0}})
	require.NoError(t, err)
	raw[len(raw)-2] ^= 1
	_, err = c.do(true, func(tx *bolt.Tx) error { return tx.Bucket(verdictBucket).Put(key, raw) })
	require.NoError(t, err)
	inner := &hashVerifier{}
	v.inner = inner
	got, err := v.Verify(context.Background(), pairs)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.EqualValues(t, 1, inner.calls.Load(), "only the edited value is verified again")
	require.NoError(t, c.Close())
}

// A pair's query is part of its verdict's key: the judge that read it may
// answer otherwise.
func TestCacheKeyHoldsTheQuery(t *testing.T) {
	p := cachePairs(1)[0]
	plain := cacheKey("v1", p)
	asked := p
	asked.Query = "How deep is Lake Orrin?"
	other := p
	other.Query = "How deep is Lake Vell?"
	assert.NotEqual(t, plain, cacheKey("v1", asked))
	assert.NotEqual(t, cacheKey("v1", asked), cacheKey("v1", other))
}

// twoWorkers is a verifier that wants two calls in flight.
type twoWorkers struct{ adjudicate.Verifier }

func (twoWorkers) PreferredWorkers() int { return 2 }

// The cache and the chunk-by-chunk wrapper pass the wrapped verifier's
// worker preference on (else --workers 0 would fall back to one call for a
// model that wants two), and state none for a verifier that states none.
func TestWrappersPassOnPreferredWorkers(t *testing.T) {
	inner := twoWorkers{}
	if got := (&cachedVerifier{inner: inner}).PreferredWorkers(); got != 2 {
		t.Errorf("cache: %d workers, want the inner's 2", got)
	}
	if got := newChunkwise(inner, "m").PreferredWorkers(); got != 2 {
		t.Errorf("chunkwise: %d workers, want the inner's 2", got)
	}
	if got := (&cachedVerifier{inner: struct{ adjudicate.Verifier }{}}).PreferredWorkers(); got != 0 {
		t.Errorf("cache over a verifier with no preference: %d, want 0", got)
	}
}
