package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/outdir"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

var verdictBucket = []byte("verdicts")

// cacheValueVersion starts every stored value; the value is then the
// SHA-256 of key and JSON, and the JSON of the verdict. A value that does
// not check out is a miss (the claim is verified again and the value
// rewritten), never a different verdict.
const cacheValueVersion = 1

// Cache stores verdicts in a bbolt file, keyed by a hash of everything a
// verdict depends on: the verifier's version, the claim text and every
// retrieved passage (id, offsets, text, score). A changed model, weights,
// index or k gives other keys, so nothing stale is ever reused.
//
// It is only a cache: a damaged file (bbolt's own checks fail, or it panics
// reading it) is reported as a warning and replaced by an empty one, and
// damage found while the run reads it turns the cache off for the rest of
// the run and removes the file when the run closes it.
type Cache struct {
	path string
	log  *slog.Logger

	mu     sync.RWMutex
	db     *bolt.DB
	broken atomic.Bool
	bad    int // values whose checksum failed (under mu)
}

// OpenCache opens (or creates) a verdict cache file. log gets the warnings
// about a damaged cache (nil: none).
func OpenCache(path string, log *slog.Logger) (*Cache, error) {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	db, err := openBolt(path)
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open verdict cache %s: it is locked (is another 'audit run' writing to the same --out folder?)", path)
	}
	var damaged *damageError
	if errors.As(err, &damaged) && !outdir.Owned(filepath.Dir(path)) {
		// Only a file in a folder the tool made (outdir.OwnTag) is ours to
		// replace: this one may be the user's.
		return nil, fmt.Errorf("%s %w: not a verdict cache audit can read (%v) in a folder audit did not make; move it away (it is left as it is)", path, outdir.ErrNotOurs, damaged.err)
	}
	if errors.As(err, &damaged) {
		log.Warn("verdict cache is damaged: starting a fresh one (verdicts are verified again)", "path", path, "damage", damaged.err)
		if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove damaged verdict cache: %w", rerr)
		}
		db, err = openBolt(path)
	}
	if err != nil {
		return nil, fmt.Errorf("open verdict cache %s: %w", path, err)
	}
	return &Cache{path: path, log: log, db: db}, nil
}

// damageError is a cache file that bbolt refuses or panics on.
type damageError struct{ err error }

func (e *damageError) Error() string { return e.err.Error() }

// openBolt opens the file, creates the bucket and checks every page; an
// error other than the lock or the file system's, and any panic, is damage.
// Walking every key costs one read of the file, once per run.
func openBolt(path string) (db *bolt.DB, err error) {
	// A damaged page id can point past the memory-mapped file: make that
	// fault a panic we recover, not a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if db != nil {
				db.Close()
			}
			db, err = nil, &damageError{fmt.Errorf("bbolt failed: %v", p)}
		}
	}()
	db, err = bolt.Open(path, outdir.FileMode, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		var pe *fs.PathError
		if errors.Is(err, bolterrors.ErrTimeout) || errors.As(err, &pe) {
			return nil, err
		}
		return nil, &damageError{err}
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(verdictBucket)
		if err != nil {
			return err
		}
		// Touch every page here, in this goroutine, so damage bbolt
		// notices by panicking is found now (tx.Check would panic in a
		// goroutine of its own, which nothing can recover).
		return b.ForEach(func(_, _ []byte) error { return nil })
	})
	if err != nil {
		db.Close()
		return nil, &damageError{err}
	}
	return db, nil
}

// Close closes the cache file; a cache found damaged is removed, so the
// next run starts a fresh one.
func (c *Cache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bad > 0 {
		c.log.Warn("verdict cache: values failed their checksum and were verified again", "path", c.path, "values", c.bad)
	}
	err := c.db.Close()
	if c.broken.Load() {
		if rerr := os.Remove(c.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return rerr
		}
		return nil
	}
	return err
}

// do runs fn on the db unless the cache is broken; a panic inside bbolt
// breaks the cache (the caller then goes without it).
func (c *Cache) do(update bool, fn func(*bolt.Tx) error) (ok bool, err error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.broken.Load() {
		return false, nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, nil
			c.breakCache(fmt.Errorf("bbolt failed: %v", p))
		}
	}()
	if update {
		err = c.db.Update(fn)
	} else {
		err = c.db.View(fn)
	}
	return err == nil, err
}

func (c *Cache) breakCache(why error) {
	if c.broken.CompareAndSwap(false, true) {
		c.log.Warn("verdict cache is damaged: going on without it; it is removed at the end of the run", "path", c.path, "damage", why)
	}
}

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
	if p.Query != "" {
		// Only a pair carrying the query hashes it: the other keys stay
		// what they were.
		put("\x00query")
		put(p.Query)
	}
	return h.Sum(nil)
}

func valueSum(key, js []byte) [sha256.Size]byte {
	return sha256.Sum256(append(append([]byte(nil), key...), js...))
}

// encodeValue stores the verdict with its checksum.
func encodeValue(key []byte, v adjudicate.Verdict) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	sum := valueSum(key, js)
	return append(append([]byte{cacheValueVersion}, sum[:]...), js...), nil
}

// decodeValue returns the verdict when raw checks out.
func decodeValue(key, raw []byte) (adjudicate.Verdict, bool) {
	var v adjudicate.Verdict
	if len(raw) < 1+sha256.Size || raw[0] != cacheValueVersion {
		return v, false
	}
	js := raw[1+sha256.Size:]
	sum := valueSum(key, js)
	if !bytes.Equal(sum[:], raw[1:1+sha256.Size]) || json.Unmarshal(js, &v) != nil || adjudicate.CheckLogits(v.Logits) != nil {
		return v, false
	}
	v.Usage = adjudicate.Usage{} // nothing was spent on it this time
	return v, true
}

// cachedVerifier answers from the cache and asks the inner verifier only
// for what it does not know, storing the answers in one transaction per
// batch (so a crash loses at most the batch in flight).
type cachedVerifier struct {
	inner   adjudicate.Verifier
	cache   *Cache
	version string
	red     adjudicate.Redactor
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
	// Nothing is stored with a secret of the verifier's in it: the cache is
	// a file inside --out like any other.
	return &cachedVerifier{inner: v, cache: c, version: version, red: adjudicate.NewRedactor(adjudicate.SecretsOf(v)...)}
}

func (cv *cachedVerifier) PreferredBatchSize() int {
	if bs, ok := cv.inner.(adjudicate.BatchSizer); ok {
		return bs.PreferredBatchSize()
	}
	return 0
}

func (cv *cachedVerifier) PreferredWorkers() int { return adjudicate.PreferredWorkers(cv.inner) }

func (cv *cachedVerifier) Version() string { return cv.version }

// lookup reads the cached verdicts of keys; a value that fails its
// checksum, or a read that panicked part way, counts as a miss.
func (cv *cachedVerifier) lookup(keys [][]byte) ([]adjudicate.Verdict, []bool, error) {
	out := make([]adjudicate.Verdict, len(keys))
	hit := make([]bool, len(keys))
	bad := 0
	ok, err := cv.cache.do(false, func(tx *bolt.Tx) error {
		b := tx.Bucket(verdictBucket)
		if b == nil {
			return errors.New("no verdict bucket")
		}
		for i, k := range keys {
			raw := b.Get(k)
			if raw == nil {
				continue
			}
			if out[i], hit[i] = decodeValue(k, raw); !hit[i] {
				bad++
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read verdict cache %s: %w", cv.cache.path, err)
	}
	if !ok {
		return make([]adjudicate.Verdict, len(keys)), make([]bool, len(keys)), nil // trust nothing read
	}
	if bad > 0 {
		cv.cache.mu.Lock()
		cv.cache.bad += bad
		cv.cache.mu.Unlock()
	}
	return out, hit, nil
}

// Close closes the cache file and what the inner verifier holds.
func (cv *cachedVerifier) Close() error {
	closeIfCloser(cv.inner)
	return cv.cache.Close()
}

func (cv *cachedVerifier) Verify(ctx context.Context, batch []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	keys := make([][]byte, len(batch))
	for i, p := range batch {
		keys[i] = cacheKey(cv.version, p)
	}
	out, hit, err := cv.lookup(keys)
	if err != nil {
		return nil, err
	}
	var missIdx []int
	for i := range batch {
		if !hit[i] {
			missIdx = append(missIdx, i)
		}
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
	for j, i := range missIdx {
		out[i] = got[j]
	}
	_, err = cv.cache.do(true, func(tx *bolt.Tx) error {
		b := tx.Bucket(verdictBucket)
		for j, i := range missIdx {
			if got[j].Err != nil || adjudicate.CheckLogits(got[j].Logits) != nil {
				continue // never cache a broken answer
			}
			vd := got[j]
			vd.Rationale = cv.red.Redact(vd.Rationale)
			raw, err := encodeValue(keys[i], vd)
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
		return nil, fmt.Errorf("write verdict cache %s: %w", cv.cache.path, err)
	}
	return out, nil
}
