package reports

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/parquet-go/parquet-go"
)

// outcomeColumns are the columns of records.parquet that the reports,
// the shard merge and the comparison of two runs read: everything
// OutcomeOf, CheckRecord, the re-decision of a shard's claims, the run's
// identity and summary.json's usage need, and nothing else (no text, snippets, rationales or
// probabilities). The Parquet reader projects the file onto them, so the
// other columns are neither decompressed nor decoded.
type outcomeColumns struct {
	ClaimID        string           `parquet:"claim_id"`
	SourceID       string           `parquet:"source_id,dict"`
	ClaimType      string           `parquet:"claim_type,dict"`
	Importance     string           `parquet:"importance,dict"`
	GoldLabel      *string          `parquet:"gold_label,optional,dict"`
	PredictedLabel *string          `parquet:"predicted_label,optional,dict"`
	Abstained      bool             `parquet:"abstained"`
	AbstainReason  *string          `parquet:"abstain_reason,optional,dict"`
	Confidence     *float64         `parquet:"confidence,optional"`
	LogitSupported *float64         `parquet:"logit_supported,optional"`
	LogitUnsupp    *float64         `parquet:"logit_unsupported,optional"`
	LogitInsuff    *float64         `parquet:"logit_insufficient,optional"`
	Temperature    float64          `parquet:"temperature"`
	Correct        *bool            `parquet:"correct,optional"`
	NumericCheck   *string          `parquet:"numeric_check,optional,dict"`
	Evidence       []evidenceColumn `parquet:"evidence,list"`
	LatencyMS      float64          `parquet:"latency_ms"`
	Verifier       string           `parquet:"verifier,dict"`
	RunID          string           `parquet:"run_id,dict"`
	VerifierLabel  *string          `parquet:"verifier_label,optional,dict"`
	DecidedBy      *string          `parquet:"decided_by,optional,dict"`
	Flags          []string         `parquet:"flags,list"`
	Rule           *string          `parquet:"rule,optional,dict"`
	RuleLabel      *string          `parquet:"rule_label,optional,dict"`
	ClaimIndex     int64            `parquet:"claim_index"`
	GoldEvidence   []string         `parquet:"gold_evidence,list"`
	RunInstance    string           `parquet:"run_instance,dict"`
	StartedAt      int64            `parquet:"started_at,timestamp(millisecond)"`
	TokensIn       *int64           `parquet:"tokens_in,optional"`
	TokensOut      *int64           `parquet:"tokens_out,optional"`
	Calls          *int64           `parquet:"calls,optional"`
	Retries        *int64           `parquet:"retries,optional"`
	Cost           *float64         `parquet:"cost,optional"`
}

// metaColumn is the claims' metadata and evidence tags, read beside
// outcomeColumns only when a slice is asked of them (a map per row is the
// costliest column to decode).
type metaColumn struct {
	Meta         map[string]string `parquet:"meta"`
	EvidenceTags []string          `parquet:"evidence_tags,list"`
}

// evidenceColumn is the part of an evidence entry gold-evidence ranks read.
type evidenceColumn struct {
	DocID  string  `parquet:"doc_id"`
	SpanID *string `parquet:"span_id,optional"`
}

// record is the Record the columns give (the others left zero).
func (c *outcomeColumns) record(r *Record) {
	*r = Record{ClaimID: c.ClaimID, SourceID: c.SourceID, ClaimType: c.ClaimType, Importance: c.Importance,
		GoldLabel: c.GoldLabel, PredictedLabel: c.PredictedLabel, Abstained: c.Abstained, AbstainReason: c.AbstainReason,
		Confidence: c.Confidence, LogitSupported: c.LogitSupported, LogitUnsupp: c.LogitUnsupp, LogitInsuff: c.LogitInsuff,
		Temperature: c.Temperature, Correct: c.Correct, NumericCheck: c.NumericCheck, LatencyMS: c.LatencyMS,
		Verifier: c.Verifier, RunID: c.RunID, VerifierLabel: c.VerifierLabel, DecidedBy: c.DecidedBy, Flags: c.Flags,
		Rule: c.Rule, RuleLabel: c.RuleLabel, ClaimIndex: c.ClaimIndex, GoldEvidence: c.GoldEvidence,
		RunInstance: c.RunInstance, StartedAt: c.StartedAt,
		TokensIn: c.TokensIn, TokensOut: c.TokensOut, Calls: c.Calls, Retries: c.Retries, Cost: c.Cost}
	if len(c.Evidence) > 0 {
		r.Evidence = make([]Evidence, len(c.Evidence))
		for i, e := range c.Evidence {
			r.Evidence[i] = Evidence{DocID: e.DocID, SpanID: e.SpanID}
		}
	}
}

// ScanRecords streams a records file through fn, a batch of rows at a
// time, reading only the columns the metrics need (the Record fn gets has
// the rest zero: no text, evidence snippets, probabilities or rationale;
// Meta only with meta true). row is the 0-based row in the file. fn may
// keep the Record: each row is a Record of its own. Damage is an error
// naming the file, as in ReadParquet.
func ScanRecords(path string, meta bool, fn func(row int64, r Record) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("read %s: damaged Parquet file (%v)", path, p)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	f, pf, _, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := sameTable[Record](path, pf); err != nil {
		return err
	}
	if n := pf.NumRows(); n < 0 {
		return fmt.Errorf("read %s: damaged Parquet file (footer says %d rows)", path, n)
	}
	cols := newBatchReader[outcomeColumns](pf)
	defer cols.r.Close()
	var metas *batchReader[metaColumn]
	if meta {
		metas = newBatchReader[metaColumn](pf)
		defer metas.r.Close()
	}
	var row int64
	for {
		n, rerr := cols.read()
		if metas != nil {
			// The metadata's reader goes in step with the other columns'.
			if m, merr := metas.read(); m != n || merr != rerr && (rerr == nil || merr == nil) {
				return fmt.Errorf("read %s: damaged Parquet file (the meta column has other rows than the rest)", path)
			}
		}
		for i := range cols.buf[:n] {
			var r Record
			cols.buf[i].record(&r)
			if metas != nil {
				r.Meta, r.EvidenceTags = metas.buf[i].Meta, metas.buf[i].EvidenceTags
			}
			if err := fn(row, r); err != nil {
				return err
			}
			row++
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("read %s: %w", path, rerr)
		}
	}
}

// CountRecords is how many rows the records files' footers say they
// hold, summed: what a caller that keeps a value per row allocates once
// rather than doubling as it appends. A file that cannot be opened counts
// 0 (the scan that follows says why). A file's count is capped at 8 rows
// a byte of the file, so a damaged footer cannot make a caller allocate
// for rows the file could not hold (a claim id alone takes more).
func CountRecords(files []string) int {
	var n int64
	for _, path := range files {
		f, pf, size, err := openParquet(path)
		if err != nil {
			continue
		}
		if c := pf.NumRows(); c > 0 {
			n += min(c, 8*size)
		}
		f.Close()
	}
	return int(n)
}

// scanBatch is how many rows a scan decodes at once.
const scanBatch = 1024

// batchReader reads rows of T (some of a file's columns) a batch at a time.
type batchReader[T any] struct {
	r   *parquet.GenericReader[T]
	buf []T
}

func newBatchReader[T any](pf *parquet.File) *batchReader[T] {
	return &batchReader[T]{r: parquet.NewGenericReader[T](pf), buf: make([]T, scanBatch)}
}

func (b *batchReader[T]) read() (int, error) {
	// The reader fills the maps and lists a row already holds: the rows
	// a caller kept from the last batch must not see this one's values.
	clear(b.buf)
	return b.r.Read(b.buf)
}

// ReadRecordsAt reads whole records (every column) at the given 0-based
// rows of a records file, in the order given: what a scan picked for a
// page that shows a claim's text and evidence.
func ReadRecordsAt(path string, rows []int64) (out []Record, err error) {
	if len(rows) == 0 {
		return nil, nil
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("read %s: damaged Parquet file (%v)", path, p)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	f, pf, _, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := sameTable[Record](path, pf); err != nil {
		return nil, err
	}
	order := slices.Clone(rows)
	slices.Sort(order)
	got := map[int64]Record{}
	for _, row := range slices.Compact(order) {
		if row < 0 || row >= pf.NumRows() {
			return nil, fmt.Errorf("read %s: no row %d (the file has %d)", path, row+1, pf.NumRows())
		}
		// The file opened again for each row: two seeks on one reader, or
		// readers sharing an open file, read the map column (meta) of
		// another row.
		r, err := readRowAt(path, row)
		if err != nil {
			return nil, fmt.Errorf("read %s: row %d: %w", path, row+1, err)
		}
		got[row] = r
	}
	out = make([]Record, len(rows))
	for i, row := range rows {
		out[i] = got[row]
	}
	return out, nil
}

func readRowAt(path string, row int64) (Record, error) {
	f, pf, _, err := openParquet(path)
	if err != nil {
		return Record{}, err
	}
	defer f.Close()
	r := parquet.NewGenericReader[Record](pf)
	defer r.Close()
	if err := r.SeekToRow(row); err != nil {
		return Record{}, err
	}
	buf := make([]Record, 2)
	if n, err := r.Read(buf); n < 1 {
		return Record{}, err
	}
	return buf[0], nil
}

// interner interns the repeated strings of outcomes (source ids): a
// million outcomes hold each source once.
type interner map[string]string

func (in interner) of(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	in[s] = s
	return s
}

// ReadOptions say what the outcomes read for the reports keep.
type ReadOptions struct {
	// SliceBy are the metadata keys sliced on: an outcome keeps only
	// their values (no metadata is read without any).
	SliceBy []string
	// Folds and Seed, when Folds ≥ 2, set each outcome's cross-fitting
	// fold and leave its claim id empty (metrics.Outcome.Fold): the
	// cross-fit that follows must use the same K and seed.
	Folds int
	Seed  uint64
}

// compact reduces an outcome to what the reports keep of it.
func (o ReadOptions) compact(out *metrics.Outcome, src interner) {
	out.Source = src.of(out.Source)
	out.Meta = SliceMeta(out.Meta, o.SliceBy)
	if !slices.Contains(o.SliceBy, metrics.SliceTags) {
		out.Tags = 0
	}
	if o.Folds >= 2 {
		out.Fold = int8(metrics.FoldOf(out.ID, o.Seed, o.Folds) + 1)
		out.ID = ""
	}
}

// SliceMeta is the part of a claim's metadata the reports read: the
// values of the slice keys (nil without any).
func SliceMeta(meta map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := meta[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}
