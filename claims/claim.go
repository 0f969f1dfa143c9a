package claims

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/claimaudit/claimaudit/label"
	"strconv"
)

// Claim is one atomic claim (seed 003 §1 plus type, importance, cite and an
// optional gold label; DESIGN.md "Formats").
type Claim struct {
	ID            string        `json:"id"`
	SourceID      string        `json:"source_id,omitempty"`
	Text          string        `json:"text"`
	Subject       string        `json:"subject,omitempty"`
	Predicate     string        `json:"predicate,omitempty"`
	Object        string        `json:"object,omitempty"`
	Qualifiers    Qualifiers    `json:"qualifiers,omitzero"`
	Timeframe     *Timeframe    `json:"timeframe,omitempty"`
	Modality      string        `json:"modality,omitempty"`
	Polarity      string        `json:"polarity,omitempty"`
	Normalization Normalization `json:"normalization,omitzero"`
	Notes         string        `json:"notes,omitempty"`
	Type          string        `json:"type,omitempty"`
	Importance    string        `json:"importance,omitempty"`
	Cite          []string      `json:"cite,omitempty"`
	// Evidence, when set, overrides the run's evidence scope for this
	// claim (EvidenceScopes: corpus, cited, cited-or-corpus).
	Evidence string `json:"evidence,omitempty"`
	Label    Label  `json:"label,omitempty"`
	// Meta is user metadata: string values (numbers and booleans as their
	// JSON text) that pass through to the records and can be slices.
	Meta map[string]string `json:"meta,omitempty"`
}

// Qualifiers are keyed modifiers of a claim. Quantity is the number as
// written ("48.2 million"), or a number.
type Qualifiers struct {
	Quantity   *Scalar `json:"quantity,omitempty"`
	Unit       string  `json:"unit,omitempty"`
	Location   string  `json:"location,omitempty"`
	Population string  `json:"population,omitempty"`
	Condition  string  `json:"condition,omitempty"`
}

// Timeframe bounds a claim in time; each date is YYYY-MM-DD or empty.
type Timeframe struct {
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
	AsOf  string `json:"as_of,omitempty"`
}

// Normalization holds canonical forms used for matching.
type Normalization struct {
	Entities           []string `json:"entities,omitempty"`
	Value              *Scalar  `json:"value,omitempty"`
	PredicateCanonical string   `json:"predicate_canonical,omitempty"`
}

// Scalar is a JSON value that is a string or a number (seed 003's
// "str|float"). Exactly one of Str and Num is meaningful, by IsNum.
type Scalar struct {
	Str   string
	Num   float64
	IsNum bool
}

// NumScalar and StrScalar build scalars.
func NumScalar(v float64) *Scalar { return &Scalar{Num: v, IsNum: true} }
func StrScalar(s string) *Scalar  { return &Scalar{Str: s} }

// MarshalJSON writes a number or a string.
func (s Scalar) MarshalJSON() ([]byte, error) {
	if s.IsNum {
		return []byte(strconv.FormatFloat(s.Num, 'g', -1, 64)), nil
	}
	return json.Marshal(s.Str)
}

// UnmarshalJSON reads a number or a string.
func (s *Scalar) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		*s = Scalar{}
		return json.Unmarshal(b, &s.Str)
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("expected string or number: %w", err)
	}
	*s = Scalar{Num: f, IsNum: true}
	return nil
}

// Label is a verdict; the type, its text forms and parsing are the label
// package's.
type Label = label.Label

// The three labels.
const (
	Supported    = label.Supported
	Unsupported  = label.Unsupported
	Insufficient = label.Insufficient
)

// Labels in the fixed order used for logits, confusion matrices and reports.
var Labels = label.All[:]

// ParseLabel accepts the three labels and FEVER's aliases (label.Parse).
func ParseLabel(s string) (Label, bool) { return label.Parse(s) }

// Enumerations of the schema.
var (
	Types       = []string{"numeric", "temporal", "definitional", "policy", "fact"}
	Importances = []string{"critical", "material", "minor"}
	Modalities  = []string{"assertion", "prediction", "hypothesis", "recommendation", "possibility"}
	Polarities  = []string{"positive", "negative"}
	// EvidenceScopes are where a claim's evidence may come from: the whole
	// corpus by retrieval (cited passages first), only the documents and
	// spans the claim cites, or those and, for a claim that cites nothing,
	// retrieval from the corpus.
	EvidenceScopes = []string{EvidenceCorpus, EvidenceCited, EvidenceCitedOrCorpus}
)

// Evidence scopes (Claim.Evidence, audit run --evidence).
const (
	EvidenceCorpus        = "corpus"
	EvidenceCited         = "cited"
	EvidenceCitedOrCorpus = "cited-or-corpus"
)

// Gold is one line of a gold-label file.
type Gold struct {
	ClaimID string `json:"claim_id"`
	Label   Label  `json:"label"`
}
