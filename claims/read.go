package claims

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/claimaudit/claimaudit/label"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/jsonl"
)

// Errors specific to claim files; the generic ones are jsonl's.
var (
	ErrEnum          = errors.New("value not allowed")
	ErrBadDate       = errors.New("invalid date")
	ErrUnknownClaim  = errors.New("unknown claim_id")
	ErrLabelConflict = errors.New("conflicting gold labels")
)

var claimFields = []string{"id", "source_id", "text", "subject", "predicate", "object", "qualifiers", "timeframe",
	"modality", "polarity", "normalization", "notes", "type", "importance", "cite", "label", "meta"}

// Validator reads claim files and then gold files, collecting every defect.
type Validator struct {
	errs   jsonl.ErrorList
	keep   bool
	claims []Claim
	idLine map[string]loc   // id -> where it was defined
	labels map[string]Label // labels given in the claims file
	gold   map[string]Label
	goldAt map[string]loc
	// files are the files read, which a loc names by index: a location
	// is 8 bytes a claim rather than a "file:line" string each.
	files []string
	// evidence holds the gold evidence ids (span or document ids) a gold
	// file names, by claim id.
	evidence map[string][]string
	counts   struct{ claims, gold int }

	// IgnoreUnknownGold, when set, counts gold lines whose claim_id names
	// no claim read (UnknownGold) instead of failing them: a run over a
	// sample of the claims with the full gold file. The zero value is
	// strict.
	IgnoreUnknownGold bool
	unknownGold       int
}

// UnknownGold returns how many gold lines named a claim that was not read
// (counted only with IgnoreUnknownGold; otherwise each is an error).
func (v *Validator) UnknownGold() int { return v.unknownGold }

// NewValidator returns a validator; keep says whether to hold the claims in
// memory (Load) or only check them (validation before streaming).
func NewValidator(keep bool) *Validator {
	return &Validator{
		errs:   jsonl.ErrorList{Limit: 10000},
		keep:   keep,
		idLine: map[string]loc{},
		labels: map[string]Label{},
		gold:   map[string]Label{},
		goldAt: map[string]loc{},

		evidence: map[string][]string{},
	}
}

// GoldEvidence returns the gold evidence ids (span or document ids) the
// gold files name, by claim id; claims without are absent.
func (v *Validator) GoldEvidence() map[string][]string { return v.evidence }

// Errors returns the defects found so far.
func (v *Validator) Errors() *jsonl.ErrorList { return &v.errs }

// Counts returns how many claim and gold lines were read.
func (v *Validator) Counts() (claims, gold int) { return v.counts.claims, v.counts.gold }

// Gold returns the gold labels by claim id: those of the claims file joined
// with those of gold files. When the claims file gave no labels it is the
// validator's own map of the gold files' labels (not a copy).
func (v *Validator) Gold() map[string]Label {
	if len(v.labels) == 0 {
		return v.gold
	}
	out := make(map[string]Label, len(v.labels)+len(v.gold))
	for id, l := range v.labels {
		out[id] = l
	}
	for id, l := range v.gold {
		out[id] = l
	}
	return out
}

// Claims returns the kept claims with gold labels joined, or the error list.
func (v *Validator) Claims() ([]Claim, error) {
	if err := v.errs.Err(); err != nil {
		return nil, err
	}
	for i := range v.claims {
		if l, ok := v.gold[v.claims[i].ID]; ok {
			v.claims[i].Label = l
		}
	}
	return v.claims, nil
}

// Load reads and validates a claims file and an optional gold file.
func Load(ctx context.Context, claimsPath, goldPath string) ([]Claim, error) {
	v := NewValidator(true)
	if err := v.ReadFile(ctx, "claims", claimsPath); err != nil {
		return nil, err
	}
	if goldPath != "" {
		if err := v.ReadFile(ctx, "gold", goldPath); err != nil {
			return nil, err
		}
	}
	return v.Claims()
}

// ReadFile validates a "claims" or "gold" file (claims first).
func (v *Validator) ReadFile(ctx context.Context, role, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", role, err)
	}
	defer f.Close()
	switch role {
	case "claims":
		return v.AddClaims(ctx, f, path)
	case "gold":
		return v.AddGold(ctx, f, path)
	}
	return fmt.Errorf("unknown input role %q", role)
}

// AddClaims reads a JSONL stream of claims.
func (v *Validator) AddClaims(ctx context.Context, r io.Reader, file string) error {
	return eachRecord(ctx, r, file, &v.errs, func(rec jsonl.Record) {
		v.counts.claims++
		c, ok := parseClaim(rec)
		if c.ID != "" {
			if first, dup := v.idLine[c.ID]; dup {
				rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first defined at %s)", c.ID, v.where(first)))
				return
			}
			v.idLine[c.ID] = v.at(file, rec.Line)
			if c.Label != "" {
				v.labels[c.ID] = c.Label
			}
		}
		if ok && v.keep {
			v.claims = append(v.claims, c)
		}
	})
}

// AddGold reads a JSONL stream of {claim_id, label} with optional
// evidence, the ids of the spans or documents that decide the claim (a
// "text" member, as some datasets carry, is allowed and ignored). Every claim_id must name a
// claim read before, once; a label that contradicts the claims file's is an
// error.
func (v *Validator) AddGold(ctx context.Context, r io.Reader, file string) error {
	return eachRecord(ctx, r, file, &v.errs, func(rec jsonl.Record) {
		v.counts.gold++
		rec.AllowOnly("claim_id", "label", "text", "evidence")
		id, idOK := rec.Str("claim_id", true, true)
		raw, labelOK := rec.Str("label", true, true)
		rec.Str("text", false, false)
		ev := rec.Strings("evidence")
		for i, e := range ev {
			if jsonl.IsBlank(e) {
				rec.Fail("evidence", rec.Col("evidence"), jsonl.Errorf(jsonl.ErrEmpty, "element %d: blank id", i))
				ev = nil
				break
			}
		}
		var lbl Label
		if labelOK {
			if lbl, labelOK = ParseLabel(raw); !labelOK {
				rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrEnum, "%q is not a label (%s)", raw, label.Accepted))
			}
		}
		if !idOK {
			return
		}
		if first, dup := v.goldAt[id]; dup {
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate claim_id %q (first labelled at %s)", id, v.where(first)))
			return
		}
		v.goldAt[id] = v.at(file, rec.Line)
		if _, known := v.idLine[id]; !known {
			if v.IgnoreUnknownGold {
				v.unknownGold++
				return
			}
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(ErrUnknownClaim, "no claim with id %q", id))
			return
		}
		if !labelOK {
			return
		}
		if prev, ok := v.labels[id]; ok && prev != lbl {
			rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrLabelConflict, "%q contradicts label %q in the claims file (%s)", lbl, prev, v.where(v.idLine[id])))
			return
		}
		v.gold[id] = lbl
		if len(ev) > 0 {
			v.evidence[id] = ev
		}
	})
}

// loc is a line of one of the validator's files.
type loc struct{ file, line int32 }

// at is the loc of line in file.
func (v *Validator) at(file string, line int) loc {
	i := len(v.files) - 1
	if i < 0 || v.files[i] != file {
		i = slices.Index(v.files, file)
		if i < 0 {
			i = len(v.files)
			v.files = append(v.files, file)
		}
	}
	return loc{file: int32(i), line: int32(min(line, math.MaxInt32))}
}

// where is l as file:line.
func (v *Validator) where(l loc) string { return fmt.Sprintf("%s:%d", v.files[l.file], l.line) }

func eachRecord(ctx context.Context, r io.Reader, file string, errs *jsonl.ErrorList, check func(jsonl.Record)) error {
	_, err := jsonl.Each(ctx, r, file, 0, errs, check)
	return err
}

// parseClaim reads and checks one claim record; ok is false when it had
// any defect.
func parseClaim(rec jsonl.Record) (Claim, bool) {
	var c Claim
	rec.AllowOnly(claimFields...)
	c.ID, _ = rec.Str("id", true, true)
	c.Text, _ = rec.Str("text", true, true)
	c.SourceID, _ = rec.Str("source_id", false, false)
	c.Subject, _ = rec.Str("subject", false, false)
	c.Predicate, _ = rec.Str("predicate", false, false)
	c.Object, _ = rec.Str("object", false, false)
	c.Notes, _ = rec.Str("notes", false, false)
	c.Modality = enum(rec, "modality", Modalities)
	c.Polarity = enum(rec, "polarity", Polarities)
	c.Type = enum(rec, "type", Types)
	c.Importance = enum(rec, "importance", Importances)
	c.Cite = rec.Strings("cite")
	if raw, ok := rec.Str("label", false, false); ok {
		if l, valid := ParseLabel(raw); valid {
			c.Label = l
		} else {
			rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrEnum, "%q is not a label (%s)", raw, label.Accepted))
		}
	}
	nested(rec, "qualifiers", map[string]string{"quantity": "scalar", "unit": "string", "location": "string", "population": "string", "condition": "string"}, &c.Qualifiers)
	nested(rec, "normalization", map[string]string{"entities": "strings", "value": "scalar", "predicate_canonical": "string"}, &c.Normalization)
	var tf Timeframe
	if nested(rec, "timeframe", map[string]string{"start": "string", "end": "string", "as_of": "string"}, &tf) {
		for _, d := range []struct{ name, val string }{{"start", tf.Start}, {"end", tf.End}, {"as_of", tf.AsOf}} {
			if d.val == "" {
				continue
			}
			if _, err := time.Parse("2006-01-02", d.val); err != nil {
				rec.Fail("timeframe."+d.name, rec.Col("timeframe"), jsonl.Errorf(ErrBadDate, "%q is not a date YYYY-MM-DD", d.val))
			}
		}
		if tf.Start != "" && tf.End != "" && tf.End < tf.Start {
			rec.Fail("timeframe.end", rec.Col("timeframe"), jsonl.Errorf(ErrBadDate, "end %s is before start %s", tf.End, tf.Start))
		}
		if tf != (Timeframe{}) {
			c.Timeframe = &tf
		}
	}
	c.Meta = meta(rec)
	return c, rec.Clean()
}

// meta reads the optional "meta" object of user metadata: a flat object
// whose string values pass through to the records. Numbers and booleans are
// kept as their JSON text ("2020", "true") so they can still name a slice;
// null members are dropped; nested objects and arrays are errors, since a
// slice needs one flat value.
func meta(rec jsonl.Record) map[string]string {
	raw := rec.Raw("meta")
	if raw == nil || jsonl.KindOf(raw) == "null" {
		return nil
	}
	var members map[string]json.RawMessage
	if jsonl.KindOf(raw) != "object" || json.Unmarshal(raw, &members) != nil {
		rec.Fail("meta", rec.Col("meta"), jsonl.Errorf(jsonl.ErrWrongType, "expected object or null, got %s", jsonl.KindOf(raw)))
		return nil
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]string{}
	for _, k := range keys {
		v := members[k]
		switch kind := jsonl.KindOf(v); kind {
		case "null":
		case "string":
			var s string
			_ = json.Unmarshal(v, &s)
			out[k] = s
		case "number", "boolean":
			out[k] = string(bytes.TrimSpace(v))
		default:
			rec.Fail("meta."+k, rec.Col("meta"), jsonl.Errorf(jsonl.ErrWrongType, "expected string, number, boolean or null, got %s", kind))
		}
		if k == "" || strings.TrimSpace(k) != k {
			rec.Fail("meta", rec.Col("meta"), jsonl.Errorf(jsonl.ErrWrongType, "key %q is empty or has surrounding spaces", k))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func enum(rec jsonl.Record, name string, allowed []string) string {
	s, ok := rec.Str(name, false, false)
	if !ok {
		return ""
	}
	if !slices.Contains(allowed, s) {
		rec.Fail(name, rec.Col(name), jsonl.Errorf(ErrEnum, "%q is not one of %s", s, strings.Join(allowed, ", ")))
		return ""
	}
	return s
}

// nested checks an optional object member whose keys have the given kinds
// ("string", "scalar" for string-or-number, "strings") and decodes it into
// out. It reports false when the member is absent, null or invalid.
func nested(rec jsonl.Record, name string, kinds map[string]string, out any) bool {
	raw := rec.Raw(name)
	if raw == nil || jsonl.KindOf(raw) == "null" {
		return false
	}
	var members map[string]json.RawMessage
	if jsonl.KindOf(raw) != "object" || json.Unmarshal(raw, &members) != nil {
		rec.Fail(name, rec.Col(name), jsonl.Errorf(jsonl.ErrWrongType, "expected object or null, got %s", jsonl.KindOf(raw)))
		return false
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ok := true
	for _, k := range keys {
		kind, known := kinds[k]
		got := jsonl.KindOf(members[k])
		switch {
		case !known:
			rec.Fail(name+"."+k, rec.Col(name), jsonl.Errorf(jsonl.ErrUnknownField, "unknown field (known: %s)", strings.Join(sortedKeys(kinds), ", ")))
			ok = false
		case got == "null":
		case kind == "string" && got != "string",
			kind == "scalar" && got != "string" && got != "number",
			kind == "strings" && !isStringArray(members[k]):
			want := map[string]string{"string": "string", "scalar": "string or number", "strings": "array of strings"}[kind]
			rec.Fail(name+"."+k, rec.Col(name), jsonl.Errorf(jsonl.ErrWrongType, "expected %s or null, got %s", want, got))
			ok = false
		}
	}
	if !ok {
		return false
	}
	if err := json.Unmarshal(raw, out); err != nil {
		// Say why (a number out of float64's range, 1e999, say).
		why := strings.TrimPrefix(err.Error(), "json: ")
		rec.Fail(name, rec.Col(name), jsonl.Errorf(jsonl.ErrWrongType, "cannot decode %s: %s", name, why))
		return false
	}
	return ok
}

func isStringArray(raw json.RawMessage) bool {
	var s []string
	return jsonl.KindOf(raw) == "array" && json.Unmarshal(raw, &s) == nil
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Scan reads a claims file that has been validated and calls fn for each
// claim in order, with the gold label from gold joined in. It does not hold
// the claims in memory.
func Scan(ctx context.Context, path string, gold map[string]Label, fn func(Claim) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open claims: %w", err)
	}
	defer f.Close()
	errs := &jsonl.ErrorList{Limit: 100}
	var fnErr error
	err = eachRecord(ctx, f, path, errs, func(rec jsonl.Record) {
		if fnErr != nil {
			return
		}
		c, ok := parseClaim(rec)
		if !ok {
			return
		}
		if l, ok := gold[c.ID]; ok {
			c.Label = l
		}
		fnErr = fn(c)
	})
	if err != nil {
		return err
	}
	if fnErr != nil {
		return fnErr
	}
	return errs.Err()
}
