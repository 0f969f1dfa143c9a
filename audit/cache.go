package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

var verdictBucket = []byte("verdicts")

// Cache stores verdicts in a bbolt file, keyed by a hash of everything a
// verdict depends on: the verifier's version, the claim text and every
// retrieved passage (id, offsets, text, score). A changed model, weights,
// index or k gives other keys, so nothing stale is ever reused.
type Cache struct {
	db *bolt.DB
}

// OpenCache opens (or creates) a verdict cache file.
func OpenCache(path string) (*Cache, error) {
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: 2 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open verdict cache %s: it is locked (is another 'audit run' writing to the same --out folder?)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open verdict cache %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(verdictBucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("open verdict cache: %w", err)
	}
	return &Cache{db: db}, nil
}

// Close closes the cache file.
func (c *Cache) Close() error { return c.db.Close() }

func cacheKey(version string, p adjudicate.Pair) []byte {
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(version)
	put(p.Claim)
	for _, ps := range p.Passages {
		put(ps.ID)
		put(ps.Text)
		put(fmt.Sprintf("%d %d %v %v", ps.Start, ps.End, math.Float64bits(ps.Score), ps.Cited))
	}
	return h.Sum(nil)
}

// cachedVerifier answers from the cache and asks the inner verifier only
// for what it does not know, storing the answers in one transaction per
// batch (so a crash loses at most the batch in flight).
type cachedVerifier struct {
	inner   adjudicate.Verifier
	cache   *Cache
	version string
	hits    atomic.Int64
}

// Hits is how many verdicts came from the cache.
func (cv *cachedVerifier) Hits() int { return int(cv.hits.Load()) }

// WithCache wraps a verifier.
func WithCache(v adjudicate.Verifier, c *Cache) adjudicate.Verifier {
	version := fmt.Sprintf("%T", v)
	if vv, ok := v.(adjudicate.Versioner); ok {
		version = vv.Version()
	}
	return &cachedVerifier{inner: v, cache: c, version: version}
}

func (cv *cachedVerifier) PreferredBatchSize() int {
	if bs, ok := cv.inner.(adjudicate.BatchSizer); ok {
		return bs.PreferredBatchSize()
	}
	return 0
}

func (cv *cachedVerifier) Version() string { return cv.version }

// Close closes the cache file and what the inner verifier holds.
func (cv *cachedVerifier) Close() error {
	closeIfCloser(cv.inner)
	return cv.cache.Close()
}

func (cv *cachedVerifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out := make([]adjudicate.Verdict, len(batch))
	keys := make([][]byte, len(batch))
	var missIdx []int
	err := cv.cache.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(verdictBucket)
		for i, p := range batch {
			keys[i] = cacheKey(cv.version, p)
			if raw := b.Get(keys[i]); raw != nil && json.Unmarshal(raw, &out[i]) == nil {
				continue
			}
			missIdx = append(missIdx, i)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read verdict cache: %w", err)
	}
	cv.hits.Add(int64(len(batch) - len(missIdx)))
	if len(missIdx) == 0 {
		return out, ctx.Err()
	}
	miss := make([]adjudicate.Pair, len(missIdx))
	for j, i := range missIdx {
		miss[j] = batch[i]
	}
	got, err := cv.inner.Verify(ctx, miss)
	if err != nil {
		return nil, err
	}
	if len(got) != len(miss) {
		return nil, fmt.Errorf("verifier returned %d verdicts for %d pairs", len(got), len(miss))
	}
	err = cv.cache.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(verdictBucket)
		for j, i := range missIdx {
			out[i] = got[j]
			if !finite(got[j].Logits) {
				continue // never cache a broken answer
			}
			raw, err := json.Marshal(got[j])
			if err != nil {
				return err
			}
			if err := b.Put(keys[i], raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("write verdict cache: %w", err)
	}
	return out, nil
}

func finite(z [3]float64) bool {
	for _, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
