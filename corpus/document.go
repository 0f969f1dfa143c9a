package corpus

import (
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Document is one record of the corpus file (DESIGN.md "Formats").
type Document struct {
	DocID     string          `json:"doc_id"`
	Title     string          `json:"title,omitempty"`
	Text      string          `json:"text"`
	Source    string          `json:"source,omitempty"`
	CreatedAt string          `json:"created_at,omitempty"` // as written; validated ISO-8601 date or date-time
	Meta      json.RawMessage `json:"meta,omitempty"`
}

// Span is one evidence span: a half-open range [Start, End) of a document's
// text counted in Unicode code points.
type Span struct {
	SpanID string          `json:"span_id"`
	DocID  string          `json:"doc_id"`
	Start  int             `json:"start"`
	End    int             `json:"end"`
	Quote  string          `json:"quote,omitempty"`
	Tags   []string        `json:"tags,omitempty"`
	Meta   json.RawMessage `json:"meta,omitempty"`
}

// Errors specific to corpus files; the generic ones (syntax, types, missing
// fields, duplicate ids) are jsonl's.
var (
	ErrBadDate       = errors.New("invalid date")
	ErrUnknownDoc    = errors.New("unknown doc_id")
	ErrOffsets       = errors.New("invalid offsets")
	ErrQuoteMismatch = errors.New("quote does not match text[start:end]")
)

var documentFields = []string{"doc_id", "title", "text", "source", "created_at", "meta"}
var spanFields = []string{"span_id", "doc_id", "start", "end", "quote", "tags", "meta"}

// dateLayouts are the ISO-8601 shapes accepted for created_at. time.Parse
// also accepts fractional seconds after the seconds field and rejects
// impossible calendar dates such as 2023-02-30.
var dateLayouts = []string{
	"2006-01-02",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
}

// ParseDate parses an ISO-8601 date (YYYY-MM-DD) or date-time.
func ParseDate(s string) (time.Time, bool) {
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// RuneLen is the length of s in code points, the unit of span offsets.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }

// Slice returns s[start:end] with offsets in code points. The offsets must be
// valid (0 <= start <= end <= RuneLen(s)).
func Slice(s string, start, end int) string {
	b0, b1 := -1, len(s)
	i := 0
	for pos := range s {
		if i == start {
			b0 = pos
		}
		if i == end {
			b1 = pos
			break
		}
		i++
	}
	if b0 < 0 {
		b0 = len(s)
	}
	return s[b0:b1]
}

// FoldText is the normal form in which a span's quote is compared with the
// text it points at: NFC, with every run of white space folded to one space
// and none at either end.
func FoldText(s string) string {
	return strings.Join(strings.FieldsFunc(norm.NFC.String(s), isSpace), " ")
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }
