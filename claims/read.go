package claims

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/claimaudit/claimaudit/label"
	"github.com/claimaudit/claimaudit/userfile"

	"github.com/claimaudit/claimaudit/jsonl"
)

// Errors specific to claim files; the generic ones are jsonl's.
var (
	ErrEnum          = errors.New("value not allowed")
	ErrBadDate       = errors.New("invalid date")
	ErrUnknownClaim  = errors.New("unknown claim_id")
	ErrLabelConflict = errors.New("conflicting gold labels")
)

// A claim's id is "id" or, as gold files and records spell it, "claim_id"
// (one of them).
var claimFields = []string{"id", "claim_id", "source_id", "text", "subject", "predicate", "object", "qualifiers", "timeframe",
	"modality", "polarity", "normalization", "notes", "type", "importance", "cite", "evidence", "label", "meta"}

// Validator reads claim files and then gold files, collecting every defect.
//
// What it keeps per claim is compact (a million claims in tens of MB): the
// claim ids in an idTable, and by claim number where the claim was
// defined, the labels of the claims file and of gold files (labelCode) and
// the span of its gold evidence ids (numbers in an idTable of distinct
// evidence ids, which repeat across claims).
type Validator struct {
	errs   jsonl.ErrorList
	keep   bool
	claims []Claim
	ids    *idTable
	idLoc  []loc       // by claim number: where it was defined
	labels []labelCode // by claim number: the label given in the claims file
	gold   []labelCode // by claim number: the label of a gold file
	goldAt []loc       // by claim number: the gold line (line 0: none)
	// unknown are the claim_ids of gold lines naming no claim read, and
	// where each was (IgnoreUnknownGold): a second line for one is still a
	// duplicate.
	unknown   *idTable
	unknownAt []loc
	// files are the files read, which a loc names by index: a location
	// is 8 bytes a claim rather than a "file:line" string each.
	files []string
	// evidence are the gold evidence ids (span or document ids) the gold
	// files name: claim number → [start, end) of evRefs, whose entries
	// number the distinct ids of evIDs.
	evSpan []evidenceSpan
	evRefs []uint32
	evIDs  *idTable
	counts struct{ claims, gold int }

	// IgnoreUnknownGold, when set, counts gold lines whose claim_id names
	// no claim read (UnknownGold) instead of failing them: a run over a
	// sample of the claims with the full gold file. The zero value is
	// strict.
	IgnoreUnknownGold bool
	unknownGold       int

	// EachClaim, when set, is called with each claim read without a
	// defect, in file order, gold labels not joined: a caller that streams
	// the claims later keeps them as they are validated rather than
	// parsing the file again. Its first error ends AddClaims.
	EachClaim func(Claim) error
	eachErr   error
}

// UnknownGold returns how many gold lines named a claim that was not read
// (counted only with IgnoreUnknownGold; otherwise each is an error).
func (v *Validator) UnknownGold() int { return v.unknownGold }

// NewValidator returns a validator; keep says whether to hold the claims in
// memory (Load) or only check them (validation before streaming).
func NewValidator(keep bool) *Validator {
	return &Validator{errs: jsonl.ErrorList{Limit: 10000}, keep: keep, ids: newIDTable(), unknown: newIDTable(), evIDs: newIDTable()}
}

// labelCode is a label in a byte: 0 for none, else 1 + its index in Labels.
type labelCode uint8

func codeOf(l Label) labelCode { return labelCode(l.Index() + 1) }

func (c labelCode) label() Label { return label.Of(int(c) - 1) }

// evidenceSpan is where a claim's gold evidence ids are in evRefs.
type evidenceSpan struct{ start, end uint32 }

// GoldEvidence returns the gold evidence ids (span or document ids) the
// gold files name, by claim id; claims without are absent. It builds a
// map: GoldIndex is the compact form.
func (v *Validator) GoldEvidence() map[string][]string {
	g := v.GoldIndex()
	out := map[string][]string{}
	for i, sp := range v.evSpan {
		if sp.end > sp.start {
			out[v.ids.id(i)] = g.evidenceOf(i)
		}
	}
	return out
}

// Errors returns the defects found so far.
func (v *Validator) Errors() *jsonl.ErrorList { return &v.errs }

// Counts returns how many claim and gold lines were read.
func (v *Validator) Counts() (claims, gold int) { return v.counts.claims, v.counts.gold }

// Gold returns the gold labels by claim id: those of the claims file joined
// with those of gold files (a gold file's wins). It builds a map:
// GoldIndex is the compact form.
func (v *Validator) Gold() map[string]Label {
	g := v.GoldIndex()
	out := map[string]Label{}
	for i := range g.label {
		if g.label[i] != 0 {
			out[v.ids.id(i)] = g.label[i].label()
		}
	}
	return out
}

// GoldIndex returns the gold labels and evidence ids by claim id, as Gold
// and GoldEvidence do, held compactly (it shares the validator's arrays:
// read it once the files are read).
func (v *Validator) GoldIndex() *GoldIndex {
	g := &GoldIndex{ids: v.ids, label: v.gold, evSpan: v.evSpan, evRefs: v.evRefs, evIDs: v.evIDs}
	if slices.ContainsFunc(v.labels, func(c labelCode) bool { return c != 0 }) {
		g.label = make([]labelCode, v.ids.len())
		for i := range g.label {
			g.label[i] = v.labels[i]
			if i < len(v.gold) && v.gold[i] != 0 {
				g.label[i] = v.gold[i]
			}
		}
	}
	return g
}

// GoldIndex is the gold labels and gold evidence ids of validated claims,
// by claim id, held compactly (Validator.GoldIndex). A nil *GoldIndex has
// none.
type GoldIndex struct {
	ids    *idTable
	label  []labelCode // by claim number; may be shorter than ids
	evSpan []evidenceSpan
	evRefs []uint32
	evIDs  *idTable
}

// Label is the claim's gold label, if it has one.
func (g *GoldIndex) Label(id string) (Label, bool) {
	if g == nil {
		return label.None, false
	}
	i, ok := g.ids.find(id)
	if !ok || i >= len(g.label) || g.label[i] == 0 {
		return label.None, false
	}
	return g.label[i].label(), true
}

// Labelled is the number of claims with a gold label.
func (g *GoldIndex) Labelled() int {
	if g == nil {
		return 0
	}
	n := 0
	for _, c := range g.label {
		if c != 0 {
			n++
		}
	}
	return n
}

// Evidence is the claim's gold evidence ids in the gold file's order (nil
// when it has none).
func (g *GoldIndex) Evidence(id string) []string {
	if g == nil {
		return nil
	}
	i, ok := g.ids.find(id)
	if !ok {
		return nil
	}
	return g.evidenceOf(i)
}

func (g *GoldIndex) evidenceOf(i int) []string {
	if i >= len(g.evSpan) || g.evSpan[i].end == g.evSpan[i].start {
		return nil
	}
	sp := g.evSpan[i]
	out := make([]string, 0, sp.end-sp.start)
	for _, r := range g.evRefs[sp.start:sp.end] {
		out = append(out, g.evIDs.id(int(r)))
	}
	return out
}

// EvidenceIDs are the distinct gold evidence ids of every claim, sorted.
func (g *GoldIndex) EvidenceIDs() []string {
	if g == nil {
		return nil
	}
	out := make([]string, g.evIDs.len())
	for i := range out {
		out[i] = g.evIDs.id(i)
	}
	sort.Strings(out)
	return out
}

// Claims returns the kept claims with gold labels joined, or the error list.
func (v *Validator) Claims() ([]Claim, error) {
	if err := v.errs.Err(); err != nil {
		return nil, err
	}
	for i := range v.claims {
		if n, ok := v.ids.find(v.claims[i].ID); ok && n < len(v.gold) && v.gold[n] != 0 {
			v.claims[i].Label = v.gold[n].label()
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
	f, err := userfile.Open(ctx, path)
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
	err := eachRecord(ctx, r, file, &v.errs, func(rec jsonl.Record) {
		v.counts.claims++
		c, ok := parseClaim(rec)
		if c.ID != "" {
			n, added := v.ids.add(c.ID)
			if !added {
				rec.Fail("id", rec.Col("id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate id %q (first defined at %s)", c.ID, v.where(v.idLoc[n])))
				return
			}
			v.idLoc = append(v.idLoc, v.at(file, rec.Line))
			v.labels = append(v.labels, codeOf(c.Label))
		}
		if ok && v.keep {
			v.claims = append(v.claims, c)
		}
		if ok && v.EachClaim != nil && v.eachErr == nil {
			v.eachErr = v.EachClaim(c)
		}
	})
	if err == nil {
		err = v.eachErr
	}
	return err
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
		n, known := v.ids.find(id)
		if known && len(v.goldAt) < v.ids.len() {
			// Claims come before gold: the per-claim gold arrays are
			// made once, at the first gold line.
			v.goldAt = append(v.goldAt, make([]loc, v.ids.len()-len(v.goldAt))...)
			v.gold = append(v.gold, make([]labelCode, v.ids.len()-len(v.gold))...)
			v.evSpan = append(v.evSpan, make([]evidenceSpan, v.ids.len()-len(v.evSpan))...)
		}
		first, dup := loc{}, false
		if known {
			first, dup = v.goldAt[n], v.goldAt[n].line != 0
		} else if u, ok := v.unknown.find(id); ok {
			first, dup = v.unknownAt[u], true
		}
		if dup {
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(jsonl.ErrDuplicateID, "duplicate claim_id %q (first labelled at %s)", id, v.where(first)))
			return
		}
		if !known {
			v.unknown.add(id)
			v.unknownAt = append(v.unknownAt, v.at(file, rec.Line))
			if v.IgnoreUnknownGold {
				v.unknownGold++
				return
			}
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(ErrUnknownClaim, "no claim with id %q", id))
			return
		}
		v.goldAt[n] = v.at(file, rec.Line)
		if !labelOK {
			return
		}
		if prev := v.labels[n]; prev != 0 && prev.label() != lbl {
			rec.Fail("label", rec.Col("label"), jsonl.Errorf(ErrLabelConflict, "%q contradicts label %q in the claims file (%s)", lbl, prev.label(), v.where(v.idLoc[n])))
			return
		}
		v.gold[n] = codeOf(lbl)
		if len(ev) > 0 {
			start := uint32(len(v.evRefs))
			for _, e := range ev {
				r, _ := v.evIDs.add(e)
				v.evRefs = append(v.evRefs, uint32(r))
			}
			v.evSpan[n] = evidenceSpan{start: start, end: uint32(len(v.evRefs))}
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
	idField := "id"
	if rec.Has("claim_id") {
		idField = "claim_id"
		if rec.Has("id") {
			rec.Fail("claim_id", rec.Col("claim_id"), jsonl.Errorf(jsonl.ErrDuplicateKey, "give the claim's id as id or claim_id, not both"))
		}
	}
	c.ID, _ = rec.Str(idField, true, true)
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
	c.Evidence = enum(rec, "evidence", EvidenceScopes)
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
// claim in order, with the gold label from gold (nil: none) joined in. It
// does not hold the claims in memory.
func Scan(ctx context.Context, path string, gold *GoldIndex, fn func(Claim) error) error {
	f, err := userfile.Open(ctx, path)
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
		if l, ok := gold.Label(c.ID); ok {
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
