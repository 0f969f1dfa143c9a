package jsonl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// field is one top-level member of a JSON object line, with the 1-based
// byte column where its key and its value start.
type field struct {
	raw      json.RawMessage
	keyCol   int
	valueCol int
}

// Record is one JSONL line decoded into its top-level members. Nested values
// stay raw: the formats only ever need one level of typed fields. Its
// accessors report defects to the error list, positioned at the member.
type Record struct {
	File   string
	Line   int
	fields map[string]field
	errs   *ErrorList
	// errsBefore is errs.Total when the record was parsed.
	errsBefore int
}

// Clean reports whether no defect was found in this record since it was parsed.
func (r *Record) Clean() bool { return r.errs.Total == r.errsBefore }

// Has reports whether the member is present (null counts as present).
func (r *Record) Has(name string) bool { _, ok := r.fields[name]; return ok }

// Col is the 1-based byte column of a member's value, or 0 when absent.
func (r *Record) Col(name string) int { return r.fields[name].valueCol }

// Raw returns a member's raw JSON, or nil when absent.
func (r *Record) Raw(name string) json.RawMessage { return r.fields[name].raw }

// ParseRecord splits a line into top-level members. It reports (and returns
// false for) lines that are not valid UTF-8, not valid JSON, not an object, or
// that repeat a key. encoding/json bounds nesting depth, so hostile input such
// as 100k nested arrays is an error here, not a stack overflow.
func ParseRecord(file string, lineNo int, line []byte, errs *ErrorList) (Record, bool) {
	rec := Record{File: file, Line: lineNo, errs: errs}
	if !utf8.Valid(line) {
		col := 1
		for i := 0; i < len(line); {
			r, size := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && size <= 1 {
				col = i + 1
				break
			}
			i += size
		}
		errs.Add(file, lineNo, col, "", ErrEncoding)
		return rec, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		rec.syntax(dec, err)
		return rec, false
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		errs.Add(file, lineNo, 1, "", Errorf(ErrWrongType, "record must be a JSON object, got %s", kindOfToken(tok)))
		return rec, false
	}
	rec.fields = make(map[string]field)
	for dec.More() {
		keyCol := skipSeparators(line, int(dec.InputOffset())) + 1
		tok, err := dec.Token()
		if err != nil {
			rec.syntax(dec, err)
			return rec, false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			rec.syntax(dec, err)
			return rec, false
		}
		valueCol := int(dec.InputOffset()) - len(raw) + 1
		if prev, dup := rec.fields[key]; dup {
			errs.Add(file, lineNo, keyCol, key, Errorf(ErrDuplicateKey, "key appears twice in the object (first at column %d)", prev.keyCol))
			return rec, false
		}
		rec.fields[key] = field{raw: raw, keyCol: keyCol, valueCol: valueCol}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		rec.syntax(dec, err)
		return rec, false
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		errs.Add(file, lineNo, skipSeparators(line, end)+1, "", Errorf(ErrSyntax, "unexpected data after the JSON object"))
		return rec, false
	}
	rec.errsBefore = errs.Total
	return rec, true
}

func (r *Record) syntax(dec *json.Decoder, err error) {
	col := int(dec.InputOffset()) + 1
	var se *json.SyntaxError
	if errors.As(err, &se) {
		col = int(se.Offset)
		if col < 1 {
			col = 1
		}
	}
	msg := err.Error()
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of line"
	}
	r.errs.Add(r.File, r.Line, col, "", Errorf(ErrSyntax, "malformed JSON: %s", msg))
}

func skipSeparators(line []byte, i int) int {
	for i < len(line) {
		switch line[i] {
		case ' ', '\t', '\r', '\n', ',':
			i++
		default:
			return i
		}
	}
	return i
}

func kindOfToken(tok any) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// KindOf names the JSON type of a raw value by its first byte.
func KindOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Fail reports a defect of member name at column col (0: the member is missing).
func (r *Record) Fail(name string, col int, err error) {
	r.errs.Add(r.File, r.Line, col, name, err)
}

// AllowOnly reports every member not in the known set. Unknown fields are
// errors, not silently dropped: a typo such as "creted_at" must not quietly
// lose data.
func (r *Record) AllowOnly(known ...string) {
	names := make([]string, 0, len(r.fields))
	for name := range r.fields {
		names = append(names, name)
	}
	sortByCol(names, r.fields)
	for _, name := range names {
		ok := false
		for _, k := range known {
			if name == k {
				ok = true
				break
			}
		}
		if !ok {
			r.Fail(name, r.fields[name].keyCol, Errorf(ErrUnknownField, "unknown field (known: %s)", strings.Join(known, ", ")))
		}
	}
}

func sortByCol(names []string, fields map[string]field) {
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && fields[names[j]].keyCol < fields[names[j-1]].keyCol; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
}

// Str reads a string member. required: absence or null is an error;
// nonEmpty: a value of only white space is an error. ok is false when the
// member is absent, null or invalid.
func (r *Record) Str(name string, required, nonEmpty bool) (s string, ok bool) {
	f, present := r.fields[name]
	if !present || KindOf(f.raw) == "null" {
		if required {
			col := 0
			if present {
				col = f.valueCol
			}
			r.Fail(name, col, Errorf(ErrMissingField, "required string is missing"))
		}
		return "", false
	}
	if KindOf(f.raw) != "string" {
		r.Fail(name, f.valueCol, Errorf(ErrWrongType, "expected string, got %s", KindOf(f.raw)))
		return "", false
	}
	if esc, lone := loneSurrogate(f.raw); lone {
		// encoding/json would read it as U+FFFD: the id or text would
		// silently differ from the file's (joins on it miss).
		r.Fail(name, f.valueCol, Errorf(ErrEncoding, "lone UTF-16 surrogate escape %s is not valid text", esc))
		return "", false
	}
	if err := json.Unmarshal(f.raw, &s); err != nil {
		r.Fail(name, f.valueCol, Errorf(ErrSyntax, "bad string: %v", err))
		return "", false
	}
	if nonEmpty && IsBlank(s) {
		r.Fail(name, f.valueCol, Errorf(ErrEmpty, "must not be empty"))
		return "", false
	}
	return s, true
}

// loneSurrogate finds a \uD800-\uDFFF escape in a JSON string that is
// not half of a surrogate pair.
func loneSurrogate(raw []byte) (string, bool) {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32)
		return rune(v), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // an escaped character (\\ included)
			continue
		}
		c, ok := hex4(i)
		if !ok {
			continue
		}
		switch {
		case c >= 0xD800 && c <= 0xDBFF:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return string(raw[i : i+6]), true
		case c >= 0xDC00 && c <= 0xDFFF:
			return string(raw[i : i+6]), true
		}
		i += 5
	}
	return "", false
}

// Int reads a required integral number member.
func (r *Record) Int(name string) (n int, ok bool) {
	f, present := r.fields[name]
	if !present || KindOf(f.raw) == "null" {
		col := 0
		if present {
			col = f.valueCol
		}
		r.Fail(name, col, Errorf(ErrMissingField, "required integer is missing"))
		return 0, false
	}
	if KindOf(f.raw) != "number" {
		r.Fail(name, f.valueCol, Errorf(ErrWrongType, "expected integer, got %s", KindOf(f.raw)))
		return 0, false
	}
	v, err := strconv.ParseInt(string(f.raw), 10, 64)
	if err != nil {
		if bytes.ContainsAny(f.raw, ".eE") {
			r.Fail(name, f.valueCol, Errorf(ErrWrongType, "expected integer, got %s", f.raw))
		} else {
			r.Fail(name, f.valueCol, Errorf(ErrRange, "integer %s out of range", f.raw))
		}
		return 0, false
	}
	if v > 1<<40 || v < -(1<<40) {
		r.Fail(name, f.valueCol, Errorf(ErrRange, "integer %d out of range", v))
		return 0, false
	}
	return int(v), true
}

// Object reads an optional object member (null allowed) and returns it raw.
func (r *Record) Object(name string) json.RawMessage {
	f, present := r.fields[name]
	if !present || KindOf(f.raw) == "null" {
		return nil
	}
	if KindOf(f.raw) != "object" {
		r.Fail(name, f.valueCol, Errorf(ErrWrongType, "expected object or null, got %s", KindOf(f.raw)))
		return nil
	}
	return append(json.RawMessage(nil), f.raw...)
}

// Strings reads an optional array of strings (null allowed).
func (r *Record) Strings(name string) []string {
	f, present := r.fields[name]
	if !present || KindOf(f.raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if KindOf(f.raw) != "array" || json.Unmarshal(f.raw, &items) != nil {
		r.Fail(name, f.valueCol, Errorf(ErrWrongType, "expected array of strings or null, got %s", KindOf(f.raw)))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if KindOf(it) != "string" || json.Unmarshal(it, &s) != nil {
			r.Fail(name, f.valueCol, Errorf(ErrWrongType, "element %d: expected string, got %s", i, KindOf(it)))
			return nil
		}
		out = append(out, s)
	}
	return out
}

// IsBlank reports whether s is empty or only white space.
func IsBlank(s string) bool {
	for _, c := range s {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

// Each reads a JSONL stream and calls fn with every line that parses as an
// object; defects (overlong lines, bad JSON) go to errs. maxLine <= 0 means
// DefaultMaxLineBytes. It returns the number of non-blank lines read; the
// error is an I/O failure or ctx's.
func Each(ctx context.Context, r io.Reader, file string, maxLine int, errs *ErrorList, fn func(Record)) (int, error) {
	lr := NewLineReaderContext(ctx, r, maxLine)
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		line, lineNo, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if errors.Is(err, ErrNotText) {
			// Not JSONL at all: one error, and no further reading.
			errs.Add(file, lineNo, 0, "", err)
			return n + 1, nil
		}
		if errors.Is(err, ErrLineTooLong) {
			n++
			errs.Add(file, lineNo, 0, "", err)
			continue
		}
		if err != nil {
			return n, err
		}
		n++
		if rec, ok := ParseRecord(file, lineNo, line, errs); ok {
			fn(rec)
		}
	}
}
