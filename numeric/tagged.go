package numeric

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tagged outputs (seed 000's user contract): a model writes every number it
// takes from a claim as <claim id="clm 7ef6" policy="round1">5.7</claim>;
// a checker reads each tag, checks its number against the claim table under
// the tag's policy, and shows every number of the text as one of three:
// verified (tag present, check passed), flagged (tag present, check
// failed) or bare (no tag). Fail-closed: a malformed tag verifies nothing.

// Number statuses.
const (
	StatusVerified = "verified"
	StatusFlagged  = "flagged"
	StatusBare     = "bare"
)

// NumberCheck is one number of an output: where it stands, its status and,
// for a tagged number, the claim, the policy and why.
type NumberCheck struct {
	Start, End int    // byte offsets of the number in the output's text
	Text       string // the number as written (a tag's content)
	Status     string
	ClaimID    string // "" for a bare number
	Policy     string // the policy the tag asked for ("" for a bare number)
	Decided    string // the mode that decided ("round1", "auto:abbr")
	Reason     string
	Claim      *TableClaim
	// TagStart and TagEnd bound the whole tag (equal to Start, End for a
	// bare number).
	TagStart, TagEnd int
}

// TagError is a malformed tag: unclosed, a closing tag without an opening
// one, attributes that do not parse, an unknown claim id or policy.
// Offset is the byte offset of the tag in the output's text; Column the
// 1-based character column.
type TagError struct {
	Offset, Column int
	Tag            string
	Message        string
}

func (e TagError) Error() string {
	return fmt.Sprintf("column %d: %s: %s", e.Column, e.Message, e.Tag)
}

// TagChecker checks the tagged outputs of one claim table.
type TagChecker struct {
	Table    ClaimTable
	Policies PolicySet
	// Default is the policy of a tag that names none.
	Default string
	// Params are the parameters a built-in mode takes unless the tag
	// gives its own (decimals="2", tolerance="0.02").
	Params PolicyParams
}

var (
	reTagOpen  = regexp.MustCompile(`(?i)<claim\b([^<>]*)>`)
	reTagClose = regexp.MustCompile(`(?i)</claim\s*>`)
	reTagAttr  = regexp.MustCompile(`^\s*([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	// reLooseNumber is a number anywhere in prose: digits with separators
	// and decimals, with a sign, currency, scientific exponent or percent
	// sign that touches it.
	reLooseNumber = regexp.MustCompile(`[$€£]?[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?%?`)
)

// Check reads the tags and the bare numbers of one output's text, in text
// order, and returns every number and every malformed tag. A number inside
// a malformed tag is flagged (it carries a tag, and the tag verifies
// nothing); the text after an unclosed tag is read as untagged.
func (tc TagChecker) Check(text string) ([]NumberCheck, []TagError) {
	var nums []NumberCheck
	var errs []TagError
	pos := 0
	for pos < len(text) {
		open := reTagOpen.FindStringSubmatchIndex(text[pos:])
		closeAt := reTagClose.FindStringIndex(text[pos:])
		if open == nil {
			if closeAt != nil {
				nums = append(nums, bareNumbers(text, pos, pos+closeAt[0])...)
				errs = append(errs, tagError(text, pos+closeAt[0], pos+closeAt[1], "closing tag without an opening one"))
				pos += closeAt[1]
				continue
			}
			nums = append(nums, bareNumbers(text, pos, len(text))...)
			break
		}
		if closeAt != nil && closeAt[0] < open[0] {
			nums = append(nums, bareNumbers(text, pos, pos+closeAt[0])...)
			errs = append(errs, tagError(text, pos+closeAt[0], pos+closeAt[1], "closing tag without an opening one"))
			pos += closeAt[1]
			continue
		}
		start, openEnd := pos+open[0], pos+open[1]
		nums = append(nums, bareNumbers(text, pos, start)...)
		n, err, next := tc.tag(text, start, openEnd, text[pos+open[2]:pos+open[3]])
		if err != nil {
			errs = append(errs, *err)
		}
		if n != nil {
			nums = append(nums, *n)
		}
		pos = next
	}
	sort.SliceStable(nums, func(i, j int) bool { return nums[i].Start < nums[j].Start })
	return nums, errs
}

// tag reads the tag opening at start (its opening part ends at openEnd)
// and returns its number, its defect, and where reading goes on.
func (tc TagChecker) tag(text string, start, openEnd int, attrText string) (*NumberCheck, *TagError, int) {
	rest := text[openEnd:]
	closeAt := reTagClose.FindStringIndex(rest)
	nextOpen := reTagOpen.FindStringIndex(rest)
	if closeAt == nil || (nextOpen != nil && nextOpen[0] < closeAt[0]) {
		e := tagError(text, start, openEnd, "unclosed tag (no </claim> before the next tag or the end)")
		return nil, &e, openEnd
	}
	end := openEnd + closeAt[1]
	content := text[openEnd : openEnd+closeAt[0]]
	n := &NumberCheck{Start: openEnd, End: openEnd + closeAt[0], Text: content, Status: StatusFlagged, TagStart: start, TagEnd: end}
	trimmed := strings.TrimSpace(content)
	n.Start += strings.Index(content, trimmed)
	n.End = n.Start + len(trimmed)
	n.Text = trimmed
	attrs, bad := parseAttrs(attrText)
	if bad != "" {
		e := tagError(text, start, openEnd, bad)
		n.Reason = "malformed tag: " + bad
		return n, &e, end
	}
	n.ClaimID, n.Policy = attrs["id"], attrs["policy"]
	claim, known := tc.Table.ByID[n.ClaimID]
	if n.ClaimID == "" || !known {
		msg := fmt.Sprintf("unknown claim id %q", n.ClaimID)
		if n.ClaimID == "" {
			msg = "the tag names no claim id"
		}
		e := tagError(text, start, openEnd, msg)
		n.Reason = "malformed tag: " + msg
		return n, &e, end
	}
	n.Claim = &claim
	pol, err := tc.policyOf(attrs)
	if err != nil {
		e := tagError(text, start, openEnd, err.Error())
		n.Reason = "malformed tag: " + err.Error()
		return n, &e, end
	}
	if n.Policy == "" {
		n.Policy = pol.Name
	}
	tok, perr := ParseQuantity(trimmed)
	var d Decision
	if perr != nil {
		d = Decision{Policy: pol.Name, Reason: fmt.Sprintf("not verified: unparsed text %q", trimmed)}
	} else {
		d = pol.CheckQuantity(claimFor(pol, claim), tok)
	}
	n.Decided, n.Reason = d.Policy, d.Reason
	if d.Verified {
		n.Status = StatusVerified
	}
	return n, nil, end
}

// policyOf reads a tag's policy: the seed's names (policy="round1"), a
// set (policy="exact,round1"), a policy of the policy file, or the
// reference implementation's type with its parameters as attributes
// (policy="rounded" decimals="2", policy="tolerance" tolerance="0.02").
func (tc TagChecker) policyOf(attrs map[string]string) (Policy, error) {
	spec := attrs["policy"]
	if spec == "" {
		spec = tc.Default
	}
	params := tc.Params
	if d, ok := attrs["decimals"]; ok {
		v, err := strconv.Atoi(d)
		if err != nil || v < 0 || v > 15 {
			return Policy{}, fmt.Errorf("decimals=%q is not an integer 0..15", d)
		}
		if spec != PolicyRounded {
			return Policy{}, fmt.Errorf("decimals=%q needs policy=\"rounded\"", d)
		}
		spec = "round" + strconv.Itoa(v)
	}
	if t, ok := attrs["tolerance"]; ok {
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v >= 0) {
			return Policy{}, fmt.Errorf("tolerance=%q is not a number >= 0", t)
		}
		if spec != PolicyTolerance && spec != PolicyRange && spec != PolicyAuto {
			return Policy{}, fmt.Errorf("tolerance=%q needs policy=\"tolerance\", \"range\" or \"auto\"", t)
		}
		params.RelTol = v
	}
	return tc.Policies.Resolve(spec, params)
}

// claimFor is the claimed quantity a policy compares with: the claim's
// value, or, under a policy of year modes only, the claim's year when the
// table gives one apart from the value (⟨…, PHL, 2024, 5.7, %⟩: year="2024").
func claimFor(p Policy, c TableClaim) Quantity {
	if c.Year == 0 {
		return c.Quantity
	}
	for _, m := range p.Modes {
		if m.Type != PolicyYear {
			return c.Quantity
		}
	}
	return Quantity{Text: strconv.Itoa(c.Year), Kind: KindYear, Value: float64(c.Year), Payload: float64(c.Year), Scale: 1, Unit: "year"}
}

// tagAttrs are the attributes a tag may carry.
var tagAttrs = map[string]bool{"id": true, "policy": true, "decimals": true, "tolerance": true}

// parseAttrs reads id="…" policy="…" …; bad says what does not parse.
func parseAttrs(s string) (map[string]string, string) {
	attrs := map[string]string{}
	for strings.TrimSpace(s) != "" {
		m := reTagAttr.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Sprintf("attributes do not parse at %q", strings.TrimSpace(s))
		}
		name := strings.ToLower(m[1])
		if !tagAttrs[name] {
			return nil, fmt.Sprintf("unknown attribute %q (known: decimals, id, policy, tolerance)", m[1])
		}
		if _, dup := attrs[name]; dup {
			return nil, fmt.Sprintf("attribute %q given twice", m[1])
		}
		attrs[name] = m[2] + m[3]
		s = s[len(m[0]):]
	}
	return attrs, ""
}

func tagError(text string, start, end int, msg string) TagError {
	return TagError{Offset: start, Column: utf8.RuneCountInString(text[:start]) + 1, Tag: text[start:end], Message: msg}
}

// bareNumbers are the numbers of text[from:to], outside any tag.
func bareNumbers(text string, from, to int) []NumberCheck {
	var out []NumberCheck
	for _, loc := range reLooseNumber.FindAllStringIndex(text[from:to], -1) {
		s, e := from+loc[0], from+loc[1]
		if s > 0 && isWordByte(text[s-1]) {
			continue // "clm7ef6", "mb-2": digits inside a word are not a number
		}
		out = append(out, NumberCheck{Start: s, End: e, Text: text[s:e], Status: StatusBare,
			Reason: "no claim tag", TagStart: s, TagEnd: e})
	}
	return out
}

// Counts are the numbers of an output by status, and its malformed tags.
type Counts struct {
	Verified, Flagged, Bare, Malformed int
}

// Count tallies checks and errors.
func Count(nums []NumberCheck, errs []TagError) Counts {
	c := Counts{Malformed: len(errs)}
	for _, n := range nums {
		switch n.Status {
		case StatusVerified:
			c.Verified++
		case StatusFlagged:
			c.Flagged++
		default:
			c.Bare++
		}
	}
	return c
}

// Add sums counts.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.Verified + o.Verified, c.Flagged + o.Flagged, c.Bare + o.Bare, c.Malformed + o.Malformed}
}
