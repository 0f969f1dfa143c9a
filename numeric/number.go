package numeric

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Kind is the shape of a numeric expression, which decides how it compares.
type Kind string

// Kinds of numeric expressions.
const (
	KindNumber     Kind = "number"     // 5.7, 5,700, 1.5K, 2 million
	KindPercent    Kind = "percent"    // 12%, 12 percent
	KindMoney      Kind = "money"      // $29, $1.9 billion
	KindMultiplier Kind = "multiplier" // 3x, 3×
	KindYear       Kind = "year"       // 2021
	KindDate       Kind = "date"       // 2021-07-01
	KindRatio      Kind = "ratio"      // 1/3, one third
	KindRange      Kind = "range"      // 85-95%, 10–20, 10 to 20
)

// Quantity is a parsed numeric expression. Value is the number with its
// written scale applied (1.5K → 1500; 12% → 12, in percent points); a range
// has Lo and Hi instead. Payload and Scale keep the written form (1.5 and
// 1000) for policies that care how a number was written.
type Quantity struct {
	Text      string
	Kind      Kind
	Value     float64
	Lo, Hi    float64 // KindRange only
	Payload   float64 // the digits as written, before Scale
	Scale     float64 // 1, 1e3, 1e6, 1e9, 1e12
	Decimals  int     // decimal places written in the payload
	Unit      string  // "%", "dollars", "x", "ms", "s", "min", "h", or a trailing word ("passengers")
	Qualifier string  // "about", "more than", ... when the text carried one
	Cmp       Comparator
	Negated   bool // "not more than": Cmp does not hold
	Date      time.Time
}

// ErrNotNumeric is returned for text that holds no numeric expression.
var ErrNotNumeric = errors.New("not a numeric expression")

// Qualifiers of approximation: seed 000's default set Q for the tolerance
// policy. Bounds ("more than", "up to", "nearly") are comparators, not
// approximations: see Comparator.
var approxQualifiers = []string{
	"approximately", "approx.", "approx", "about", "around", "roughly", "circa", "ca.", "some",
	"close to", "an estimated", "estimated", "~", "≈",
}

var reBetween = regexp.MustCompile(`(?i)^(.+?)\s+and\s+(.+)$`)

var scaleWords = map[string]float64{
	"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
	"billion": 1e9, "t": 1e12, "tn": 1e12, "trillion": 1e12,
}

var timeUnits = map[string]string{
	"ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s",
	"second": "s", "seconds": "s", "min": "min", "mins": "min", "minute": "min", "minutes": "min",
	"h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
}

var unitSeconds = map[string]float64{"ms": 0.001, "s": 1, "min": 60, "h": 3600}

var smallNumbers = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1,
}

var fractionWords = map[string]float64{
	"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
	"fourths": 4, "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10,
}

var (
	reDate   = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	reNumber = regexp.MustCompile(`^([+-]?)(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?`)
	reRange  = regexp.MustCompile(`^(.+?)\s*(?:-|–|—|\bto\b)\s*(.+)$`)
	reFrac   = regexp.MustCompile(`^(\d+)\s*/\s*(\d+)$`)
)

// ParseQuantity parses a numeric expression such as "5.7", "5,700",
// "1.5K", "2 million", "12%", "0.12", "85-95%", "10–20", "$29", "3x",
// "2021", "2021-07-01", "one third", "1/3" or "about 48 million passengers".
// Text that is not one numeric expression is an error wrapping ErrNotNumeric.
func ParseQuantity(text string) (Quantity, error) {
	q := Quantity{Text: text, Scale: 1}
	s := strings.TrimSpace(text)
	s, q.Qualifier, q.Negated = stripQualifier(s)
	q.Cmp = comparatorOf(q.Qualifier)
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if q.Cmp == CmpBetween {
		m := reBetween.FindStringSubmatch(s)
		if m == nil {
			return q, fmt.Errorf("%q: %w: \"between\" needs \"X and Y\"", text, ErrNotNumeric)
		}
		s = m[1] + " to " + m[2]
	}
	if s == "" {
		return q, fmt.Errorf("%q: %w", text, ErrNotNumeric)
	}
	if m := reDate.FindStringSubmatch(s); m != nil {
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			return q, fmt.Errorf("%q: %w: %v", text, ErrNotNumeric, err)
		}
		q.Kind, q.Date, q.Value, q.Payload = KindDate, t, float64(t.Year()), float64(t.Year())
		q.Unit = "year"
		return q, nil
	}
	if r, ok := parseRatio(s); ok {
		q.Kind, q.Value, q.Payload, q.Decimals = KindRatio, r, r, -1
		return q, nil
	}
	if m := reRange.FindStringSubmatch(s); m != nil && !strings.HasPrefix(s, "-") {
		lo, errLo := parseSingle(m[1])
		hi, errHi := parseSingle(m[2])
		if errLo == nil && errHi == nil {
			// "85-95%": the unit and scale written once apply to both ends.
			if lo.Unit == "" {
				lo.Unit, lo.Kind = hi.Unit, hi.Kind
				if lo.Scale == 1 && hi.Scale != 1 {
					lo.Scale, lo.Value = hi.Scale, lo.Payload*hi.Scale
				}
			}
			if lo.Unit != hi.Unit || lo.Value > hi.Value {
				return q, fmt.Errorf("%q: %w: range ends differ in unit or are reversed", text, ErrNotNumeric)
			}
			q.Kind, q.Lo, q.Hi, q.Value = KindRange, lo.Value, hi.Value, (lo.Value+hi.Value)/2
			q.Unit, q.Scale, q.Payload = hi.Unit, hi.Scale, hi.Payload
			q.Decimals = max(lo.Decimals, hi.Decimals)
			return q, nil
		}
	}
	if q.Cmp == CmpBetween {
		return q, fmt.Errorf("%q: %w: \"between\" needs two values", text, ErrNotNumeric)
	}
	one, err := parseSingle(s)
	if err != nil {
		return q, fmt.Errorf("%q: %w", text, err)
	}
	one.Text, one.Qualifier, one.Cmp, one.Negated = text, q.Qualifier, q.Cmp, q.Negated
	return one, nil
}

var reLeadingNot = regexp.MustCompile(`(?i)^(?:not|never)\s+`)

// stripQualifier removes a leading comparator phrase ("about", "more than",
// "not more than", "between") and returns it.
func stripQualifier(s string) (rest, qualifier string, negated bool) {
	if m := reLeadingNot.FindString(s); m != "" {
		if r, q, _ := stripQualifier(s[len(m):]); q != "" {
			return r, q, true
		}
	}
	lower := strings.ToLower(s)
	for _, p := range comparatorPhrases {
		w := p.phrase
		if strings.HasPrefix(lower, w) {
			after := s[len(w):]
			if w == "~" || w == "≈" || strings.HasPrefix(after, " ") {
				return strings.TrimSpace(after), w, false
			}
		}
	}
	return s, "", false
}

func parseRatio(s string) (float64, bool) {
	if m := reFrac.FindStringSubmatch(s); m != nil {
		n, _ := strconv.ParseFloat(m[1], 64)
		d, _ := strconv.ParseFloat(m[2], 64)
		if d == 0 {
			return 0, false
		}
		return n / d, true
	}
	f := strings.Fields(strings.ToLower(strings.ReplaceAll(s, "-", " ")))
	if len(f) == 2 {
		n, okN := smallNumbers[f[0]]
		d, okD := fractionWords[f[1]]
		if okN && okD {
			return n / d, true
		}
	}
	return 0, false
}

// parseSingle parses one value with optional currency, scale and unit.
func parseSingle(s string) (Quantity, error) {
	q := Quantity{Text: s, Kind: KindNumber, Scale: 1}
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "$"):
		q.Kind, q.Unit, s = KindMoney, "dollars", s[1:]
	case strings.HasPrefix(s, "€"):
		q.Kind, q.Unit, s = KindMoney, "euros", strings.TrimPrefix(s, "€")
	case strings.HasPrefix(s, "£"):
		q.Kind, q.Unit, s = KindMoney, "pounds", strings.TrimPrefix(s, "£")
	case strings.HasPrefix(strings.ToUpper(s), "USD "):
		q.Kind, q.Unit, s = KindMoney, "dollars", s[4:]
	}
	m := reNumber.FindStringSubmatch(s)
	var rest string
	if m == nil || (m[2] == "" && m[3] == "") {
		// Number words: "two million", "twelve".
		f := strings.Fields(s)
		if len(f) == 0 {
			return q, ErrNotNumeric
		}
		n, ok := smallNumbers[strings.ToLower(f[0])]
		if !ok || strings.ToLower(f[0]) == "a" || strings.ToLower(f[0]) == "an" {
			return q, ErrNotNumeric
		}
		q.Payload = n
		rest = strings.TrimSpace(strings.TrimPrefix(s, f[0]))
	} else {
		digits := strings.ReplaceAll(m[2], ",", "") + "." + m[3]
		if m[2] == "" {
			digits = "0." + m[3]
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(digits, "."), 64)
		if err != nil || math.IsInf(v, 0) {
			return q, ErrNotNumeric
		}
		if m[1] == "-" {
			v = -v
		}
		q.Payload, q.Decimals = v, len(m[3])
		rest = strings.TrimSpace(s[len(m[0]):])
	}
	q.Value = q.Payload
	lower := strings.ToLower(rest)
	// Scale: "1.5K", "2M", "3.2B", "1.5 thousand", "2 million".
	if word, _ := firstWord(lower); word != "" {
		// Single letters K, M, B and T are always scales, as in seed 000
		// ("1.5K", "2M"): in claims "M" means million far more often than metres.
		if sc, ok := scaleWords[word]; ok {
			q.Scale = sc
			q.Value = q.Payload * sc
			rest = strings.TrimSpace(rest[len(word):])
			lower = strings.ToLower(rest)
		}
	}
	switch {
	case strings.HasPrefix(lower, "%"):
		q.Kind, q.Unit, rest = KindPercent, "%", rest[1:]
	case strings.HasPrefix(lower, "percent"), strings.HasPrefix(lower, "per cent"):
		q.Kind, q.Unit = KindPercent, "%"
		rest = strings.TrimPrefix(strings.TrimPrefix(lower, "percent"), "per cent")
	case (lower == "x" || lower == "×" || strings.HasPrefix(lower, "x ") || strings.HasPrefix(lower, "× ")) && q.Kind == KindNumber:
		q.Kind, q.Unit = KindMultiplier, "x"
		rest = ""
	case strings.HasPrefix(lower, "times") && q.Kind == KindNumber:
		q.Kind, q.Unit, rest = KindMultiplier, "x", ""
	}
	rest = strings.TrimSpace(rest)
	if rest != "" && !isLetterStart(rest) && !(q.Kind == KindMoney && strings.HasPrefix(rest, "/")) {
		return q, fmt.Errorf("%w: unexpected %q after the number", ErrNotNumeric, rest)
	}
	if q.Unit == "" && rest != "" {
		word, tail := firstWord(strings.ToLower(rest))
		// A unit is a whole word: followed by the end, a space or
		// punctuation that ends a phrase. "x" alone is the multiplier sign.
		if (tail != "" && !strings.ContainsRune(" \t.,;:/)-", rune(tail[0]))) || word == "x" {
			return q, fmt.Errorf("%w: unexpected %q after the number", ErrNotNumeric, rest)
		}
		if tu, ok := timeUnits[word]; ok {
			q.Unit = tu
		} else if word != "" {
			q.Unit = word
		}
	}
	// Money keeps unit "dollars" whatever follows ("$29/user"), as seed 001 says.
	if q.Kind == KindNumber && q.Unit == "" && q.Scale == 1 && q.Decimals == 0 && q.Payload >= 1000 && q.Payload <= 2999 && !strings.Contains(s, ",") {
		q.Kind, q.Unit = KindYear, "year"
	}
	return q, nil
}

func isLetterStart(s string) bool {
	for _, r := range s {
		return unicode.IsLetter(r)
	}
	return false
}

// firstWord returns the leading run of letters (or a lone symbol) and what follows.
func firstWord(s string) (word, tail string) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z') {
		i++
	}
	return s[:i], s[i:]
}

// FormatQuantity writes a value so that ParseQuantity reads it back: the
// shortest decimal form, with the unit symbol for percent, money and
// multipliers.
func FormatQuantity(q Quantity) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch q.Kind {
	case KindPercent:
		return num(q.Value) + "%"
	case KindMoney:
		return "$" + num(q.Value)
	case KindMultiplier:
		return num(q.Value) + "x"
	case KindDate:
		return q.Date.Format("2006-01-02")
	case KindRange:
		lo, hi := num(q.Lo), num(q.Hi)
		if q.Unit == "%" {
			return lo + "-" + hi + "%"
		}
		return lo + " to " + hi
	}
	if q.Unit != "" && q.Unit != "year" {
		return num(q.Value) + " " + q.Unit
	}
	if q.Kind == KindNumber && q.Value == math.Trunc(q.Value) && q.Value >= 1000 && q.Value <= 2999 {
		// Written with a separator, as people write a count, so that it is
		// not read back as a year.
		v := int(q.Value)
		return fmt.Sprintf("%d,%03d", v/1000, v%1000)
	}
	return num(q.Value)
}

// IsNumberWord reports a lower-case word that is or holds a number: one
// with a digit, a small number word ("three", "a") or a scale word
// ("million", "k").
func IsNumberWord(w string) bool {
	for _, r := range w {
		if unicode.IsDigit(r) {
			return true
		}
	}
	_, small := smallNumbers[w]
	return small || scaleWords[w] != 0
}

// TimeUnit returns the normalised form ("ms", "s", "min", "h") of a time
// unit as written ("seconds", "hrs"), and whether word is one.
func TimeUnit(word string) (string, bool) {
	u, ok := timeUnits[word]
	return u, ok
}
