package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/claimaudit/claimaudit/outdir"
	"golang.org/x/sync/errgroup"
)

// Layout of an index folder:
//
//	DIR/manifest.json  what was indexed and how (written last)
//	DIR/bleve/         the bleve (scorch) index
//
// A folder is a usable index only when manifest.json exists and says
// complete; builds happen in a sibling temporary folder that is renamed into
// place, so an interrupted build never leaves a folder that looks whole.
const (
	ManifestFile  = "manifest.json"
	bleveDir      = "bleve"
	indexFormat   = "claimaudit-index"
	formatVersion = 2 // 2: the manifest records the digests of the files
	// MappingVersion changes whenever the analyzer, fields or passage
	// construction change in a way that makes older indexes stale.
	MappingVersion = 1
	analyzerName   = "claimaudit_en"
	// Scoring names the ranking Search applies (docs/format/index.md). It
	// is computed at query time from the postings, so an index written
	// before it (manifest "bm25") is read the same way.
	Scoring = "bm25 k1=0.9 b=0.4"
)

// IndexManifest describes an index folder. Two manifests describe the same
// index when format, mapping version, passage settings and input hashes agree.
type IndexManifest struct {
	Format         string          `json:"format"`
	FormatVersion  int             `json:"format_version"`
	MappingVersion int             `json:"mapping_version"`
	Complete       bool            `json:"complete"`
	Scoring        string          `json:"scoring"`
	Bleve          string          `json:"bleve_version"`
	CreatedAt      string          `json:"created_at"`
	BuildSeconds   float64         `json:"build_seconds"`
	Inputs         []Input         `json:"inputs"`
	Passages       PassageSettings `json:"passages"`
	Counts         IndexCounts     `json:"counts"`
	// Files are the digests of the bleve folder's files; Digest is the
	// manifest's own (everything above included). OpenIndex checks both.
	Files  []FileDigest `json:"files"`
	Digest string       `json:"digest"`
}

// IndexCounts are what an index holds.
type IndexCounts struct {
	Documents int `json:"documents"`
	Spans     int `json:"spans"`
	Windows   int `json:"windows"`
	Passages  int `json:"passages"`
}

// ErrNotIndex is returned for a folder that is not a complete claimaudit index.
var ErrNotIndex = errors.New("not a complete claimaudit index")

// IndexOptions tune BuildIndex. Zero values take the defaults.
type IndexOptions struct {
	Passages  PassageSettings
	BatchSize int // passages per bleve batch; 0: 1000
	Workers   int // batches indexed at once; 0: GOMAXPROCS
	// Progress, when set, is called after each batch with the passages
	// indexed so far and the total.
	Progress func(done, total int)
}

func (o *IndexOptions) defaults() {
	if o.Passages == (PassageSettings{}) {
		o.Passages = DefaultPassageSettings
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 1000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// newMapping is the lean mapping: one analysed text field (BM25, no term
// vectors, no _all, no doc values) and stored provenance fields. The analyzer
// is bleve's English one without stop-word removal: queries drop stop words
// themselves (see QueryTerms), and keeping them in the index lets an
// all-caps entity such as "US" or "IT" be searched.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{en.PossessiveName, lowercase.Name, porter.Name},
	}); err != nil {
		return nil, fmt.Errorf("define analyzer: %w", err)
	}
	im.ScoringModel = index.BM25Scoring
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	im.DefaultAnalyzer = analyzerName

	text := bleve.NewTextFieldMapping()
	text.Analyzer = analyzerName
	text.Store = true
	text.IncludeTermVectors = false
	text.IncludeInAll = false
	text.DocValues = false

	keyword := func(indexed bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store = true
		f.Index = indexed
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	number := func() *mapping.FieldMapping {
		f := bleve.NewNumericFieldMapping()
		f.Store = true
		f.Index = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("text", text)
	dm.AddFieldMappingsAt("doc_id", keyword(true))
	dm.AddFieldMappingsAt("span_id", keyword(true))
	dm.AddFieldMappingsAt("start", number())
	dm.AddFieldMappingsAt("end", number())
	im.DefaultMapping = dm
	return im, nil
}

// BuildIndex writes a fresh index of c into dir, replacing an older
// claimaudit index there. It refuses to replace a non-empty folder that is
// not a claimaudit index.
func BuildIndex(ctx context.Context, dir string, c *Corpus, opts IndexOptions) (*IndexManifest, error) {
	opts.defaults()
	if err := opts.Passages.Validate(); err != nil {
		return nil, err
	}
	if err := checkReplaceable(dir); err != nil {
		return nil, err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, outdir.DirMode); err != nil {
		return nil, fmt.Errorf("create index parent: %w", err)
	}
	// Marked as the tool's (outdir.OwnTag): a killed build's leftover is
	// swept, and the finished index can be replaced even when damaged.
	tmp, err := outdir.MkdirTempOwned(parent, filepath.Base(dir)+".building-")
	if err != nil {
		return nil, fmt.Errorf("create index: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()

	began := time.Now()
	counts, err := writeBleve(ctx, filepath.Join(tmp, bleveDir), c, opts)
	if err != nil {
		return nil, err
	}
	m := &IndexManifest{
		Format:         indexFormat,
		FormatVersion:  formatVersion,
		MappingVersion: MappingVersion,
		Complete:       true,
		Scoring:        Scoring,
		Bleve:          moduleVersion("github.com/blevesearch/bleve/v2"),
		CreatedAt:      time.Now().UTC().Format(time.RFC3339),
		BuildSeconds:   time.Since(began).Seconds(),
		Inputs:         c.Inputs,
		Passages:       opts.Passages,
		Counts:         counts,
	}
	if err := m.seal(tmp); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(tmp, ManifestFile), m); err != nil {
		return nil, err
	}
	if err := replaceDir(tmp, dir); err != nil {
		return nil, err
	}
	done = true
	return m, nil
}

func writeBleve(ctx context.Context, path string, c *Corpus, opts IndexOptions) (IndexCounts, error) {
	im, err := newMapping()
	if err != nil {
		return IndexCounts{}, err
	}
	// unsafe_batch lets a batch return before it is persisted: safe here
	// because the whole folder is thrown away unless the build completes. Close
	// does not flush what is still in memory, so the last batch waits for its
	// persisted callback, which fires once everything before it is on disk.
	idx, asyncErr, unwatch, err := newWatchedIndex(path, im, map[string]any{"unsafe_batch": true})
	if err != nil {
		return IndexCounts{}, fmt.Errorf("create bleve index: %w", err)
	}
	defer unwatch()
	counts := IndexCounts{Documents: len(c.Docs), Spans: len(c.Spans)}
	if err := c.Passages(opts.Passages, func(p Passage) error {
		counts.Passages++
		if p.SpanID == "" {
			counts.Windows++
		}
		return nil
	}); err != nil {
		idx.Close()
		return counts, err
	}

	// Batches are indexed by several goroutines at once, so that one batch's
	// segment is built while the next is analysed. Insertion order cannot
	// show in results: ranking ties are broken by passage id.
	g, gctx := errgroup.WithContext(ctx)
	work := make(chan []Passage, opts.Workers)
	g.Go(func() error {
		defer close(work)
		buf := make([]Passage, 0, opts.BatchSize)
		send := func() error {
			select {
			case work <- buf:
				buf = make([]Passage, 0, opts.BatchSize)
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		err := c.Passages(opts.Passages, func(p Passage) error {
			buf = append(buf, p)
			if len(buf) == opts.BatchSize {
				return send()
			}
			return nil
		})
		if err == nil && len(buf) > 0 {
			err = send()
		}
		return err
	})
	var mu sync.Mutex
	done := 0
	for w := 0; w < opts.Workers; w++ {
		g.Go(func() error {
			for ps := range work {
				if err := gctx.Err(); err != nil {
					return err
				}
				b := idx.NewBatch()
				for _, p := range ps {
					doc := map[string]any{"text": p.Text, "doc_id": p.DocID, "start": p.Start, "end": p.End}
					if p.SpanID != "" {
						doc["span_id"] = p.SpanID
					}
					if err := b.Index(p.ID, doc); err != nil {
						return fmt.Errorf("index passage %s: %w", p.ID, err)
					}
				}
				if err := idx.Batch(b); err != nil {
					return fmt.Errorf("index batch: %w", err)
				}
				if opts.Progress != nil {
					mu.Lock()
					done += len(ps)
					opts.Progress(done, counts.Passages)
					mu.Unlock()
				}
			}
			return nil
		})
	}
	err = g.Wait()
	if err == nil {
		err = waitPersisted(ctx, idx, asyncErr)
	}
	// bleve's BM25 takes the average field length from the field's term
	// cardinality summed over segments, so scores would depend on how the
	// background merges of this build happened to go. One segment makes
	// every score a function of the input alone (and searches a little
	// faster). The empty batch after it waits until the merged root is on
	// disk.
	if err == nil {
		err = forceMerge(ctx, idx, asyncErr)
	}
	if err == nil {
		err = waitPersisted(ctx, idx, asyncErr)
	}
	if cerr := idx.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close bleve index: %w", cerr)
	}
	return counts, err
}

func forceMerge(ctx context.Context, idx bleve.Index, asyncErr <-chan error) error {
	adv, err := idx.Advanced()
	if err != nil {
		return fmt.Errorf("merge index: %w", err)
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("merge index: unexpected index type %T", adv)
	}
	// bleve's merger retries a failed merge (a full disk, no file
	// descriptors) for ever, and ForceMerge waits for it without looking at
	// its context: the wait ends on the merger's first error or on ctx, and
	// the caller's Close stops the merger (ForceMerge then returns).
	done := make(chan error, 1)
	go func() { done <- s.ForceMerge(ctx, nil) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("merge index: %w", err)
		}
		return ctx.Err()
	case err := <-asyncErr:
		return fmt.Errorf("merge index: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitPersisted submits an empty batch and waits until it, and so every
// batch before it, is on disk: with unsafe_batch, Close would drop segments
// still in memory.
//
// bleve's persister retries a failed write (a full disk) for ever, so the
// wait also ends on the first error it reports (asyncErr).
func waitPersisted(ctx context.Context, idx bleve.Index, asyncErr <-chan error) error {
	persisted := make(chan error, 1)
	b := idx.NewBatch()
	b.SetPersistedCallback(func(err error) { persisted <- err })
	if err := idx.Batch(b); err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	select {
	case err := <-persisted:
		if err != nil {
			return fmt.Errorf("persist index: %w", err)
		}
		return nil
	case err := <-asyncErr:
		return fmt.Errorf("persist index: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// bleve reports its background writers' failures only through a
// process-wide registry of callbacks, looked up by name when an index is
// created: each build registers a name of its own for as long as it runs.
var asyncErrors struct {
	sync.Mutex
	n int
}

// newWatchedIndex creates a scorch index whose background failures (the
// persister's, the merger's) arrive on the returned channel.
func newWatchedIndex(path string, im *mapping.IndexMappingImpl, cfg map[string]any) (bleve.Index, <-chan error, func(), error) {
	errs := make(chan error, 1)
	asyncErrors.Lock()
	defer asyncErrors.Unlock()
	asyncErrors.n++
	name := fmt.Sprintf("claimaudit-build-%d", asyncErrors.n)
	scorch.RegistryAsyncErrorCallbacks[name] = func(err error, _ string) {
		select {
		case errs <- err:
		default:
		}
	}
	unwatch := func() {
		asyncErrors.Lock()
		delete(scorch.RegistryAsyncErrorCallbacks, name)
		asyncErrors.Unlock()
	}
	cfg["asyncErrorCallbackName"] = name
	idx, err := bleve.NewUsing(path, im, scorch.Name, scorch.Name, cfg)
	if err != nil {
		delete(scorch.RegistryAsyncErrorCallbacks, name)
		return nil, nil, nil, err
	}
	return idx, errs, unwatch, nil
}

// ReadManifest reads the manifest of an index folder. It returns an error
// wrapping ErrNotIndex when the folder holds no complete index.
func ReadManifest(dir string) (*IndexManifest, error) {
	b, err := readRegular(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (no %s)", dir, ErrNotIndex, ManifestFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read index manifest: %w", err)
	}
	var m IndexManifest
	if err := json.Unmarshal(b, &m); err != nil {
		if outdir.Owned(dir) {
			// Built by the tool (it carries the tag): damaged, rebuildable.
			return nil, fmt.Errorf("%s: %w (unreadable %s: %v): rebuild it with 'audit index --force'", dir, ErrDamaged, ManifestFile, err)
		}
		return nil, fmt.Errorf("%s: %w (unreadable manifest: %v)", dir, ErrNotIndex, err)
	}
	if m.Format != indexFormat || !m.Complete {
		return nil, fmt.Errorf("%s: %w (manifest format %q, complete %v)", dir, ErrNotIndex, m.Format, m.Complete)
	}
	return &m, nil
}

// Staleness says why an index does not match the given inputs and settings,
// or "" when it does. inputs need Role and SHA256.
func (m *IndexManifest) Staleness(inputs []Input, s PassageSettings) string {
	switch {
	case m.FormatVersion != formatVersion:
		return fmt.Sprintf("index format %d, this build writes %d", m.FormatVersion, formatVersion)
	case m.MappingVersion != MappingVersion:
		return fmt.Sprintf("mapping version %d, this build uses %d", m.MappingVersion, MappingVersion)
	case m.Passages != s:
		return fmt.Sprintf("passage settings changed (%+v, now %+v)", m.Passages, s)
	case len(m.Inputs) != len(inputs):
		return fmt.Sprintf("input files changed (%d indexed, %d given)", len(m.Inputs), len(inputs))
	}
	for i := range inputs {
		if m.Inputs[i].Role != inputs[i].Role || m.Inputs[i].SHA256 != inputs[i].SHA256 {
			return fmt.Sprintf("%s file %s changed since the index was built", inputs[i].Role, inputs[i].Path)
		}
	}
	return ""
}

// checkReplaceable refuses to overwrite a folder we did not create.
func checkReplaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("index folder: %w", err)
	}
	if len(entries) == 0 || outdir.Owned(dir) {
		return nil // empty, or an index the tool built (its manifest may be damaged)
	}
	b, err := readRegular(filepath.Join(dir, ManifestFile))
	var m IndexManifest
	if err != nil || json.Unmarshal(b, &m) != nil || m.Format != indexFormat {
		return fmt.Errorf("%s exists and is not a claimaudit index: refusing to overwrite it (%w; an index built by an older audit whose %s is damaged: delete the folder and build again)", dir, ErrNotIndex, ManifestFile)
	}
	return nil
}

// replaceDir moves the finished build at tmp to dir, replacing an old index.
func replaceDir(tmp, dir string) error {
	var old string
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("move old index aside: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("move index into place: %w", err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("remove old index: %w", err)
		}
	}
	return nil
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(b, '\n'), outdir.FileMode); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "unknown"
}
