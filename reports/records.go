package reports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
	"github.com/claimaudit/claimaudit/userfile"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// SchemaVersion of the Parquet files; bumped on any column change.
const SchemaVersion = "6"

// Evidence is one retrieved passage of a record.
type Evidence struct {
	DocID  string  `parquet:"doc_id"`
	SpanID *string `parquet:"span_id,optional"`
	Start  int64   `parquet:"start"`
	End    int64   `parquet:"end"`
	Score  float64 `parquet:"score"`
	// PassageID is the index's passage id; Snippet the passage's text, cut
	// to SnippetRunes code points (Snippet).
	PassageID string `parquet:"passage_id"`
	Snippet   string `parquet:"snippet"`
}

// EvidenceUsed names the passage that decided a verdict: its id and its
// rank, 1-based, in the record's evidence list (so evidence[rank] in SQL).
type EvidenceUsed struct {
	PassageID string `parquet:"passage_id"`
	Rank      int32  `parquet:"rank"`
}

// SnippetRunes bounds a snippet: a passage's first 300 code points,
// cut back to the last space when there is one in the final 40, with "…"
// appended when anything was cut.
const SnippetRunes = 300

// Snippet is a passage's text bounded to SnippetRunes code points (plus
// the ellipsis), with runs of white space folded to one space.
func Snippet(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= SnippetRunes {
		return text
	}
	cut := SnippetRunes
	for i := SnippetRunes; i > SnippetRunes-40; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ") + "…"
}

// Record is one row of records.parquet: one claim and everything decided
// about it (DESIGN.md "Names"). Null means unknown or not applicable.
type Record struct {
	ClaimID        string   `parquet:"claim_id"`
	SourceID       string   `parquet:"source_id,dict"`
	Text           string   `parquet:"text"`
	ClaimType      string   `parquet:"claim_type,dict"`
	Importance     string   `parquet:"importance,dict"`
	GoldLabel      *string  `parquet:"gold_label,optional,dict"`
	PredictedLabel *string  `parquet:"predicted_label,optional,dict"`
	Abstained      bool     `parquet:"abstained"`
	AbstainReason  *string  `parquet:"abstain_reason,optional,dict"`
	Confidence     *float64 `parquet:"confidence,optional"`
	PSupported     *float64 `parquet:"p_supported,optional"`
	PUnsupported   *float64 `parquet:"p_unsupported,optional"`
	PInsufficient  *float64 `parquet:"p_insufficient,optional"`
	RawPSupported  *float64 `parquet:"raw_p_supported,optional"`
	RawPUnsupp     *float64 `parquet:"raw_p_unsupported,optional"`
	RawPInsuff     *float64 `parquet:"raw_p_insufficient,optional"`
	LogitSupported *float64 `parquet:"logit_supported,optional"`
	LogitUnsupp    *float64 `parquet:"logit_unsupported,optional"`
	LogitInsuff    *float64 `parquet:"logit_insufficient,optional"`
	Temperature    float64  `parquet:"temperature"`
	Correct        *bool    `parquet:"correct,optional"`
	// Tier1FA and Tier2FA are null when the gold label is unknown (a
	// false accept is undefined there), false for an abstained claim.
	Tier1FA       *bool      `parquet:"tier1_fa,optional"`
	Tier2FA       *bool      `parquet:"tier2_fa,optional"`
	Action        string     `parquet:"action,dict"`
	Verdict       string     `parquet:"verdict,dict"`
	NumericCheck  *string    `parquet:"numeric_check,optional,dict"`
	NumericPolicy *string    `parquet:"numeric_policy,optional,dict"`
	Evidence      []Evidence `parquet:"evidence,list"`
	// EvidenceUsed is the deciding passage; null when none decided (an
	// abstention for no evidence, an error, a verifier that names none).
	EvidenceUsed *EvidenceUsed `parquet:"evidence_used,optional"`
	// Meta is the claim's user metadata (claims file "meta").
	Meta      map[string]string `parquet:"meta"`
	Rationale string            `parquet:"rationale"`
	Error     *string           `parquet:"error,optional"`
	LatencyMS float64           `parquet:"latency_ms"`
	Verifier  string            `parquet:"verifier,dict"`
	RunID     string            `parquet:"run_id,dict"`

	// The numeric check's reason and the passage number it matched (or,
	// when none matched, the nearest one); null when the claim states no
	// number or no passage number was near.
	NumericReason    *string  `parquet:"numeric_reason,optional"`
	NumericFactID    *string  `parquet:"numeric_fact_id,optional"`
	NumericFactValue *float64 `parquet:"numeric_fact_value,optional"`
	NumericFactUnit  *string  `parquet:"numeric_fact_unit,optional,dict"`
	NumericFactYear  *int64   `parquet:"numeric_fact_year,optional"`
	// VerifierLabel is the verifier's own label; DecidedBy the rule that
	// set predicted_label. Both null when abstained.
	VerifierLabel *string `parquet:"verifier_label,optional,dict"`
	DecidedBy     *string `parquet:"decided_by,optional,dict"`
	// Flags are the decision rules that fired on the claim (hedged,
	// qualifier_missing, conflict, stale, fallback…; docs/rules.md); Rule
	// is the first rule that gave a label and RuleLabel that label, also
	// when --rule-effect flag did not apply it; null when none did.
	Flags     []string `parquet:"flags,list"`
	Rule      *string  `parquet:"rule,optional,dict"`
	RuleLabel *string  `parquet:"rule_label,optional,dict"`
	// ClaimIndex is the claim's position in the claims file (0-based): the
	// row order of a single run, which merging shards restores.
	ClaimIndex int64 `parquet:"claim_index"`

	// Gold evidence (docs/format/claims.md): the ids the gold file names,
	// whether a retrieved passage is one of them (its span or document),
	// and the rank of the first that is; null when the gold file names
	// none (and the rank when none was retrieved).
	GoldEvidence          []string `parquet:"gold_evidence,list"`
	GoldEvidenceRetrieved *bool    `parquet:"gold_evidence_retrieved,optional"`
	GoldEvidenceRank      *int32   `parquet:"gold_evidence_rank,optional"`

	// RunInstance and StartedAt identify the execution (Instance): unlike
	// run_id, two runs of one configuration differ in them.
	RunInstance string `parquet:"run_instance,dict"`
	StartedAt   int64  `parquet:"started_at,timestamp(millisecond)"`

	// OutputID is the model output the claim was extracted from, in a run
	// over outputs (audit run --outputs: the claim's source_id); null in a
	// run over a claims file.
	OutputID *string `parquet:"output_id,optional"`

	// VerifierConfidence is the calibrated probability of the verifier's
	// own label (its argmax, verifier_label), beside Confidence, the
	// probability of the final label; VerifierCorrect is verifier_label =
	// gold_label. ECE and the reliability and risk–coverage plots read
	// these two, over the answered labelled rows. Null where the verifier
	// gave no probabilities (an error), VerifierCorrect also when abstained
	// or the gold label is unknown.
	VerifierConfidence *float64 `parquet:"verifier_confidence,optional"`
	VerifierCorrect    *bool    `parquet:"verifier_correct,optional"`

	// What the claim says (docs/format/claims.md), as the claims file gave
	// it: each null when the claim does not give it.
	Subject       *string             `parquet:"subject,optional"`
	Predicate     *string             `parquet:"predicate,optional,dict"`
	Object        *string             `parquet:"object,optional"`
	Qualifiers    *ClaimQualifiers    `parquet:"qualifiers,optional"`
	Timeframe     *ClaimTimeframe     `parquet:"timeframe,optional"`
	Modality      *string             `parquet:"modality,optional,dict"`
	Polarity      *string             `parquet:"polarity,optional,dict"`
	Normalization *ClaimNormalization `parquet:"normalization,optional"`

	// Reviewer is who gave predicted_label: "auto" (the verifier and the
	// rules; a person's labels are review's labels.parquet); DecidedAt
	// when the record's label was decided (after calibration), UTC.
	Reviewer  string `parquet:"reviewer,dict"`
	DecidedAt int64  `parquet:"decided_at,timestamp(millisecond)"`

	// What a remote judge spent on the claim: the server's token counts,
	// the calls made and retried, and their cost at the run's prices
	// (--price-input, --price-output). All null when no remote call was
	// made for it (a local model, a verdict from the cache); Cost also
	// when no price was given.
	TokensIn  *int64   `parquet:"tokens_in,optional"`
	TokensOut *int64   `parquet:"tokens_out,optional"`
	Calls     *int64   `parquet:"calls,optional"`
	Retries   *int64   `parquet:"retries,optional"`
	Cost      *float64 `parquet:"cost,optional"`

	// ClaimTypeInferred says claim_type was not declared by the claims
	// file but inferred from the claim (extract.InferType).
	ClaimTypeInferred bool `parquet:"claim_type_inferred"`
	// EvidenceTags are the tags of the deciding passage's span (spans
	// file "tags"); empty when no passage decided, it is a window, or its
	// span has none.
	EvidenceTags []string `parquet:"evidence_tags,list"`
}

// Prices are what a remote model's tokens cost, per million tokens (in
// the currency the user gives them in); nil when not given.
type Prices struct {
	InputPerM, OutputPerM *float64
}

// Cost is the cost of tin input and tout output tokens; nil without both
// prices.
func (p Prices) Cost(tin, tout int64) *float64 {
	if p.InputPerM == nil || p.OutputPerM == nil {
		return nil
	}
	c := (float64(tin)**p.InputPerM + float64(tout)**p.OutputPerM) / 1e6
	return &c
}

// Usage totals what remote models spent over a run: summary.json's
// "usage" (docs/format/reports.md).
type Usage struct {
	TokensIn  int64 `json:"tokens_in"`
	TokensOut int64 `json:"tokens_out"`
	Calls     int64 `json:"calls"`
	Retries   int64 `json:"retries"`
	// Records counts the records with a remote call (the verifier's).
	Records int64 `json:"records,omitempty"`
	// Cost is at the run's prices; null when none were given.
	Cost *float64 `json:"cost"`
}

// Add counts one record's usage.
func (u *Usage) Add(r *Record) {
	if r.Calls == nil {
		return
	}
	u.Records++
	u.Calls += *r.Calls
	if r.Cost != nil {
		c := *r.Cost
		if u.Cost != nil {
			c += *u.Cost
		}
		u.Cost = &c
	}
	for _, f := range []struct{ dst, src *int64 }{{&u.TokensIn, r.TokensIn}, {&u.TokensOut, r.TokensOut}, {&u.Retries, r.Retries}} {
		if f.src != nil {
			*f.dst += *f.src
		}
	}
}

// UsageSummary is summary.json's "usage": the verifier's (summed over the
// records, so `audit report` gives the same) and, in a run over outputs
// with an LLM extractor, the extractor's; Cost is their sum, null when
// either's is.
type UsageSummary struct {
	Verifier  Usage    `json:"verifier"`
	Extractor *Usage   `json:"extractor"`
	Cost      *float64 `json:"cost"`
}

// NewUsageSummary totals the verifier's usage (its cost the records':
// null when none has one) and the extractor's at the prices.
func NewUsageSummary(verifier Usage, extractor *Usage, p Prices) *UsageSummary {
	s := &UsageSummary{Verifier: verifier, Cost: verifier.Cost}
	if extractor != nil {
		e := *extractor
		e.Cost = p.Cost(e.TokensIn, e.TokensOut)
		s.Extractor = &e
		s.Cost = nil
		if s.Verifier.Cost != nil && e.Cost != nil {
			sum := *s.Verifier.Cost + *e.Cost
			s.Cost = &sum
		}
	}
	return s
}

// ReviewerAuto is the reviewer of every label audit run decides.
const ReviewerAuto = "auto"

// ClaimQualifiers is a claim's qualifiers object as a struct column (so
// qualifiers.location in SQL, pl.col("qualifiers").struct.field("location")
// in polars): null when the claim has none, each field null when absent.
// Quantity is the quantity as written (a JSON number as its text);
// QuantityValue the number when the claims file gave one.
type ClaimQualifiers struct {
	Quantity      *string  `parquet:"quantity,optional"`
	QuantityValue *float64 `parquet:"quantity_value,optional"`
	Unit          *string  `parquet:"unit,optional"`
	Location      *string  `parquet:"location,optional"`
	Population    *string  `parquet:"population,optional"`
	Condition     *string  `parquet:"condition,optional"`
}

// ClaimTimeframe is a claim's timeframe: dates YYYY-MM-DD, each null when
// not given.
type ClaimTimeframe struct {
	Start *string `parquet:"start,optional"`
	End   *string `parquet:"end,optional"`
	AsOf  *string `parquet:"as_of,optional"`
}

// ClaimNormalization is a claim's normalization object: the canonical
// entities (empty when none), the value (as text, and as a number when
// the claims file gave one) and the canonical predicate.
type ClaimNormalization struct {
	Entities           []string `parquet:"entities,list"`
	Value              *string  `parquet:"value,optional"`
	ValueNum           *float64 `parquet:"value_num,optional"`
	PredicateCanonical *string  `parquet:"predicate_canonical,optional"`
}

// RowGroupRows bounds a row group, so readers stream large files.
const RowGroupRows = 64 * 1024

// AtomicFile is a file written under a temporary name and renamed into
// place by Commit; Abort (or a crash) leaves nothing that looks complete.
type AtomicFile struct {
	f    *os.File
	path string
	done bool
}

// CreateAtomic starts writing path.
func CreateAtomic(path string) (*AtomicFile, error) {
	f, err := outdir.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Base(path), err)
	}
	return &AtomicFile{f: f, path: path}, nil
}

func (a *AtomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit syncs, closes and renames the file into place.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("atomic file already finished")
	}
	a.done = true
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
		return fmt.Errorf("write %s: %w", filepath.Base(a.path), err)
	}
	return nil
}

// Abort discards the file.
func (a *AtomicFile) Abort() {
	if !a.done {
		a.done = true
		a.f.Close()
		os.Remove(a.f.Name())
	}
}

// Meta is the key-value metadata of every Parquet file of a run.
type Meta struct {
	RunID       string
	ToolVersion string
	Instance    Instance // claimaudit.run_instance and claimaudit.started_at when set
}

func writerOptions(m Meta) []parquet.WriterOption {
	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{}),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		parquet.KeyValueMetadata("claimaudit.run_id", m.RunID),
		parquet.KeyValueMetadata("claimaudit.tool_version", m.ToolVersion),
		parquet.KeyValueMetadata("claimaudit.schema_version", SchemaVersion),
	}
	if m.Instance.ID != "" {
		opts = append(opts, parquet.KeyValueMetadata("claimaudit.run_instance", m.Instance.ID),
			parquet.KeyValueMetadata("claimaudit.started_at", m.Instance.Stamp()))
	}
	return opts
}

// ParquetWriter streams rows of T into an atomic file.
type ParquetWriter[T any] struct {
	file *AtomicFile
	w    *parquet.GenericWriter[T]
	rows int
}

// NewParquetWriter starts writing path.
func NewParquetWriter[T any](path string, m Meta) (*ParquetWriter[T], error) {
	f, err := CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &ParquetWriter[T]{file: f, w: parquet.NewGenericWriter[T](f, writerOptions(m)...)}, nil
}

// Write appends rows.
func (p *ParquetWriter[T]) Write(rows ...T) error {
	if _, err := p.w.Write(rows); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(p.file.path), err)
	}
	p.rows += len(rows)
	return nil
}

// Close finishes the file and moves it into place.
func (p *ParquetWriter[T]) Close() error {
	if err := p.w.Close(); err != nil {
		p.file.Abort()
		return fmt.Errorf("finish %s: %w", filepath.Base(p.file.path), err)
	}
	return p.file.Commit()
}

// Abort discards the file.
func (p *ParquetWriter[T]) Abort() { p.file.Abort() }

// ErrWrongTable is a Parquet file that is another table than the one read
// (metrics.parquet where records.parquet was expected, say).
var ErrWrongTable = errors.New("is not the table expected")

// sameTable refuses a file whose columns are mostly not T's: another of the
// run's tables would read as rows of zero values. Files written before a
// column was added still read (at least half of the file's columns are
// T's).
func sameTable[T any](path string, pf *parquet.File) error {
	want := columnsOf[T]()
	have := map[string]bool{}
	for _, c := range want {
		have[c] = true
	}
	var cols []string
	shared := 0
	for _, f := range pf.Schema().Fields() {
		cols = append(cols, f.Name())
		if have[f.Name()] {
			shared++
		}
	}
	if len(cols) > 0 && 2*shared >= len(cols) {
		return nil
	}
	show := func(cs []string) string {
		if len(cs) > 4 {
			return strings.Join(cs[:4], ", ") + ", …"
		}
		return strings.Join(cs, ", ")
	}
	return fmt.Errorf("read %s: %w: it has the columns %s, want %s (%s): is it another of the run's files?", path, ErrWrongTable, show(cols), tableName[T](), show(want))
}

// tableName names the file T's rows are in, for messages.
func tableName[T any]() string {
	switch any(*new(T)).(type) {
	case Record:
		return "records.parquet"
	case MetricRow:
		return "metrics.parquet"
	}
	return "rows of " + reflect.TypeFor[T]().Name()
}

// ReadParquet reads every row of a Parquet file of T. A damaged file is an
// error naming it, never a panic (the Parquet library panics on some
// damage) and never an allocation its footer asks for but its size cannot
// hold.
func ReadParquet[T any](path string) (rows []T, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, err = nil, fmt.Errorf("read %s: damaged Parquet file (%v)", path, p)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	f, pf, size, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := sameTable[T](path, pf); err != nil {
		return nil, err
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	// The footer's row count is only a hint: a damaged one (2^60) must not
	// size an allocation, so it is bounded by the file's real size.
	n := pf.NumRows()
	if n < 0 {
		return nil, fmt.Errorf("read %s: damaged Parquet file (footer says %d rows)", path, n)
	}
	out := make([]T, 0, min(n, size, 1<<20))
	buf := make([]T, 1024)
	for {
		// The reader fills the maps a row already holds (meta): rows kept
		// from the last batch would see the next batch's values.
		clear(buf)
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// OutcomeOf reduces a record to what metrics need. The pipeline uses it
// too, so a report recomputed from records.parquet equals the run's.
func OutcomeOf(r Record) metrics.Outcome {
	o := metrics.Outcome{ID: r.ClaimID, Gold: metrics.Unknown, Abstained: r.Abstained, Type: metrics.NameOf(r.ClaimType), Source: r.SourceID,
		Importance: metrics.NameOf(r.Importance), LatencyMS: r.LatencyMS}
	if len(r.Meta) > 0 {
		o.Meta = r.Meta
	}
	if len(r.EvidenceTags) > 0 {
		o.Tags = metrics.TagsName(r.EvidenceTags)
	}
	if r.GoldLabel != nil {
		o.Gold = classNamed(*r.GoldLabel)
	}
	o.RuleLabel, o.VerifierLabel = metrics.Unknown, metrics.Unknown
	if r.Rule != nil && r.RuleLabel != nil {
		o.Rule, o.RuleLabel = metrics.NameOf(*r.Rule), classNamed(*r.RuleLabel)
		if r.VerifierLabel != nil && r.LogitSupported != nil {
			o.VerifierLabel = classNamed(*r.VerifierLabel)
		}
	}
	if r.PredictedLabel != nil {
		o.Predicted = classNamed(*r.PredictedLabel)
	}
	if len(r.GoldEvidence) > 0 {
		ps := make([]metrics.Passage, len(r.Evidence))
		for i, e := range r.Evidence {
			ps[i] = metrics.Passage{DocID: e.DocID}
			if e.SpanID != nil {
				ps[i].SpanID = *e.SpanID
			}
		}
		o.EvidenceRanks = metrics.EvidenceRanksOf(r.GoldEvidence, ps)
	}
	if r.LogitSupported != nil && r.LogitUnsupp != nil && r.LogitInsuff != nil {
		o.Scored = true
		o.Logits = [3]float64{*r.LogitSupported, *r.LogitUnsupp, *r.LogitInsuff}
		if r.Abstained {
			o.Predicted = metrics.Argmax(o.Logits)
		}
	}
	return o
}

func classNamed(s string) metrics.Class {
	for i, n := range metrics.ClassNames {
		if n == s {
			return metrics.Class(i)
		}
	}
	return metrics.Unknown
}

// openParquet opens a Parquet file the user named (a regular file: a FIFO
// or a device is refused before it is opened) and reads its footer; the
// caller closes f. A footer or page index so damaged that the Parquet
// library panics reading it is an error naming the file, whoever calls.
func openParquet(path string) (f *os.File, pf *parquet.File, size int64, err error) {
	f, err = userfile.Open(context.Background(), path)
	if err != nil {
		return nil, nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, 0, err
	}
	pf, err = openFooter(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, 0, fmt.Errorf("read %s: not a Parquet file (%w)", path, err)
	}
	return f, pf, st.Size(), nil
}

// openFooter is parquet.OpenFile with the library's panics on damaged
// metadata turned into an error.
func openFooter(f *os.File, size int64) (pf *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			pf, err = nil, fmt.Errorf("damaged: %v", p)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return parquet.OpenFile(f, size)
}

// HumanLabelRow is one row of a review queue's labels.parquet, written by
// `audit review --import`: the labels people gave one claim, and the label
// they settle on. Joined to records.parquet on claim_id, it says which
// labels a person gave.
type HumanLabelRow struct {
	ClaimID string `parquet:"claim_id"`
	// Reviewer is "human": the label is people's, not the run's "auto".
	Reviewer string `parquet:"reviewer,dict"`
	// HumanLabel is the most common label among the reviewers' (unsure
	// answers aside); null on a tie or when all answered unsure, and
	// Undecided says which.
	HumanLabel *string `parquet:"human_label,optional,dict"`
	Undecided  *string `parquet:"undecided,optional,dict"`
	// Reviewers and Labels are the answers, in the order given: reviewer
	// i answered Labels[i] (a label or "unsure").
	Reviewers []string `parquet:"reviewers,list"`
	Labels    []string `parquet:"labels,list"`
	// ReviewedAt is the latest answer's time; null when no answer has one.
	ReviewedAt *int64 `parquet:"reviewed_at,optional,timestamp(millisecond)"`
}

// ReviewerHuman is the reviewer of a label a person gave.
const ReviewerHuman = "human"
