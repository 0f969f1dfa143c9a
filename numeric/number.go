package numeric

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
	// scaleWord is "m" when the scale was a lone spaced "m" ("5000 m"),
	// which a comparison with a length reads as metres.
	scaleWord string
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

var scaleWords = map[string]float64{
	"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9,
	"billion": 1e9, "t": 1e12, "tn": 1e12, "trillion": 1e12,
}

var smallNumbers = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1,
}

var fractionWords = map[string]float64{
	"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
	"fourths": 4, "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10,
}

// ParseQuantity parses a numeric expression such as "5.7", "5,700",
// "1.5K", "2 million", "12%", "0.12", "85-95%", "10–20", "$29", "3x",
// "2021", "2021-07-01", "one third", "1/3" or "about 48 million passengers".
// Text that is not one numeric expression is an error wrapping ErrNotNumeric.
func ParseQuantity(text string) (Quantity, error) {
	return parseQuantity(text, true)
}

// parseQuantity is ParseQuantity; with explain false a failure is
// ErrNotNumeric itself, not an error that says why: FindNumbers tries many
// texts that fail and drops the error, and writing it cost more than the
// parse.
func parseQuantity(text string, explain bool) (Quantity, error) {
	q := Quantity{Text: text, Scale: 1}
	s := strings.TrimSpace(text)
	s, q.Qualifier, q.Negated = stripQualifier(s)
	q.Cmp = comparatorOf(q.Qualifier)
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if q.Cmp == CmpBetween {
		lo, hi, ok := matchBetween(s)
		if !ok {
			if !explain {
				return q, ErrNotNumeric
			}
			return q, fmt.Errorf("%q: %w: \"between\" needs \"X and Y\"", text, ErrNotNumeric)
		}
		s = lo + " to " + hi
	}
	if s == "" {
		if !explain {
			return q, ErrNotNumeric
		}
		return q, fmt.Errorf("%q: %w", text, ErrNotNumeric)
	}
	if d, ok, err := parseDate(s); ok || err != nil {
		if err != nil {
			if !explain {
				return q, ErrNotNumeric
			}
			return q, fmt.Errorf("%q: %w: %v", text, ErrNotNumeric, err)
		}
		q.Kind, q.Date, q.Value, q.Payload, q.Unit = KindDate, d, float64(d.Year()), float64(d.Year()), "year"
		return q, nil
	}
	if r, ok := parseRatio(s); ok {
		q.Kind, q.Value, q.Payload, q.Decimals = KindRatio, r, r, -1
		return q, nil
	}
	if m1, m2, ok := matchRange(s); ok && !strings.HasPrefix(s, "-") {
		lo, errLo := parseSingle(m1, explain)
		hi, errHi := parseSingle(m2, explain)
		if errLo == nil && errHi == nil {
			// "85-95%": the unit and scale written once apply to both ends.
			if lo.Unit == "" {
				lo.Unit, lo.Kind = hi.Unit, hi.Kind
				if lo.Scale == 1 && hi.Scale != 1 {
					lo.Scale, lo.Value = hi.Scale, lo.Payload*hi.Scale
				}
			}
			if lo.Unit != hi.Unit || lo.Value > hi.Value {
				if !explain {
					return q, ErrNotNumeric
				}
				return q, fmt.Errorf("%q: %w: range ends differ in unit or are reversed", text, ErrNotNumeric)
			}
			q.Kind, q.Lo, q.Hi, q.Value = KindRange, lo.Value, hi.Value, (lo.Value+hi.Value)/2
			q.Unit, q.Scale, q.Payload = hi.Unit, hi.Scale, hi.Payload
			q.Decimals = max(lo.Decimals, hi.Decimals)
			return q, nil
		}
	}
	if q.Cmp == CmpBetween {
		if !explain {
			return q, ErrNotNumeric
		}
		return q, fmt.Errorf("%q: %w: \"between\" needs two values", text, ErrNotNumeric)
	}
	one, err := parseSingle(s, explain)
	if err != nil {
		if !explain {
			return q, ErrNotNumeric
		}
		return q, fmt.Errorf("%q: %w", text, err)
	}
	one.Text, one.Qualifier, one.Cmp, one.Negated = text, q.Qualifier, q.Cmp, q.Negated
	return one, nil
}

// stripQualifier removes a leading comparator phrase ("about", "more than",
// "not more than", "between") and returns it.
func stripQualifier(s string) (rest, qualifier string, negated bool) {
	if n := leadingNotEnd(s); n > 0 {
		if r, q, _ := stripQualifier(s[n:]); q != "" {
			return r, q, true
		}
	}
	// Where s opens with ASCII (as far as the longest phrase), its
	// lower-case form opens with the same bytes lowered, and s is compared
	// byte by byte; else (a Kelvin sign lowers to one byte) as it was
	// written first, lowering the whole of s.
	ascii := isASCII(s[:min(len(s), longestPhrase)])
	var lower string
	if !ascii {
		lower = strings.ToLower(s)
	}
	for _, p := range comparatorPhrases {
		w := p.phrase
		if ascii && hasLowerPrefix(s, w) || !ascii && strings.HasPrefix(lower, w) {
			after := s[len(w):]
			if w == "~" || w == "≈" || strings.HasPrefix(after, " ") {
				return strings.TrimSpace(after), w, false
			}
		}
	}
	return s, "", false
}

// parseDate reads an ISO date ("2021-07-01"), an ISO month ("2021-07") or
// a month and year ("July 2021", "Jul. 2021") as the first day it names.
// ok is false when s has none of these shapes.
func parseDate(s string) (d time.Time, ok bool, err error) {
	if isISODate(s) {
		d, err = time.Parse("2006-01-02", s)
		return d, true, err
	}
	if isISOMonth(s) {
		d, err = time.Parse("2006-01", s)
		return d, true, err
	}
	name, year, ok := matchMonthYear(s)
	if !ok {
		return d, false, nil
	}
	month, known := monthNumber[strings.ToLower(name)]
	if !known {
		return d, false, nil
	}
	y, _ := strconv.Atoi(year)
	return time.Date(y, month, 1, 0, 0, 0, 0, time.UTC), true, nil
}

var (
	monthNumber = func() map[string]time.Month {
		m := map[string]time.Month{"sept": time.September}
		for mo := time.January; mo <= time.December; mo++ {
			name := strings.ToLower(mo.String())
			m[name], m[name[:3]] = mo, mo
		}
		return m
	}()
	// "1/3"; "1:4", "3 : 4"; "1 in 4", "one in four"; "2 out of 3", in
	// the order tried.
	ratioShapes = [...]func(string) (string, string, bool){matchFraction, matchColonRatio, matchWordRatio}
)

// parseRatio reads a ratio: "1/3", "1:4", "1 in 4", "2 out of 3", "one
// third", "a quarter", "three quarters", "half".
func parseRatio(s string) (float64, bool) {
	for _, match := range ratioShapes {
		a, b, ok := match(s)
		if !ok {
			continue
		}
		n, okN := ratioTerm(a)
		d, okD := ratioTerm(b)
		if !okN || !okD || d == 0 {
			return 0, false
		}
		return n / d, true
	}
	if strings.ContainsAny(s, "0123456789") {
		return 0, false // a field with a digit is no number or fraction word
	}
	f := strings.Fields(strings.ToLower(strings.ReplaceAll(s, "-", " ")))
	if len(f) == 1 && f[0] == "half" {
		return 0.5, true
	}
	if len(f) == 2 {
		n, okN := smallNumbers[f[0]]
		d, okD := fractionWords[f[1]]
		if okN && okD {
			return n / d, true
		}
	}
	return 0, false
}

// ratioTerm reads one side of a ratio: digits or a small number word.
func ratioTerm(s string) (float64, bool) {
	if isDecimal(s) {
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
	w := strings.ToLower(s)
	v, ok := smallNumbers[w]
	return v, ok && w != "a" && w != "an"
}

// parseSingle parses one value with optional currency, scale and unit. It
// fails closed: after the number only a scale, a unit of the table glued
// or spaced ("100ms", "5 km"), or up to three words naming what is counted
// ("48 million passengers") may follow; another number, a connective
// ("5.7 or 9", "2024 and 2025", "five point seven") or letters glued to
// the digits that are no unit ("5.7abc") make it not one quantity.
func parseSingle(s string, explain bool) (Quantity, error) {
	q := Quantity{Text: s, Kind: KindNumber, Scale: 1}
	s = strings.TrimSpace(s)
	s = currencyPrefix(&q, s)
	rest, err := leadingNumber(&q, s)
	if err != nil {
		return q, err
	}
	q.Value = q.Payload
	glued := rest != "" && !startsWithSpace(rest)
	rest = strings.TrimSpace(rest)
	rest, glued = scaleSuffix(&q, rest, glued)
	rest = kindSuffix(&q, rest)
	if err := unitWords(&q, rest, glued, explain); err != nil {
		return q, err
	}
	if q.Kind == KindNumber && q.Unit == "" && q.Scale == 1 && q.Decimals == 0 && q.Payload >= 1000 && q.Payload <= 2999 &&
		!strings.ContainsAny(s, ",eE") {
		q.Kind, q.Unit = KindYear, "year"
	}
	return q, nil
}

// currencyPrefix reads "$", "€", "£" or "USD " before the number.
func currencyPrefix(q *Quantity, s string) string {
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
	return s
}

// leadingNumber reads the digits ("5,700", "-3.5", "4.5e9") or a number
// word ("two") s opens with into q.Payload and q.Decimals, and returns what
// follows, untrimmed.
func leadingNumber(q *Quantity, s string) (string, error) {
	sign, whole, frac, exp, end := matchNumber(s)
	if whole == "" && frac == "" {
		// Number words: "two million", "twelve".
		f := firstField(s)
		if f == "" {
			return "", ErrNotNumeric
		}
		w := strings.ToLower(f)
		n, ok := smallNumbers[w]
		if !ok || w == "a" || w == "an" {
			return "", ErrNotNumeric
		}
		q.Payload = n
		return strings.TrimPrefix(s, f), nil
	}
	// The number as ParseFloat reads it: the digits without separators,
	// a 0 before a bare fraction. Without a separator and with digits
	// before any point, that is the text itself.
	digits := s[len(sign):end]
	if whole == "" || strings.IndexByte(whole, ',') >= 0 {
		digits = strings.ReplaceAll(whole, ",", "") + "." + frac
		if whole == "" {
			digits = "0." + frac
		}
		digits = strings.TrimSuffix(digits, ".") + exp
	}
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(v, 0) {
		return "", ErrNotNumeric
	}
	if sign == "-" {
		v = -v
	}
	q.Payload, q.Decimals = v, len(frac)
	if exp != "" {
		// 4.5e9: the exponent moves the decimal point.
		e, _ := strconv.Atoi(exp[1:])
		q.Decimals = max(0, q.Decimals-e)
	}
	return s[end:], nil
}

// scaleSuffix reads a scale: "1.5K", "2M", "3.2B", "1.5 thousand", "2
// million". Single letters K, M, B and T are always scales, as in seed 000
// ("1.5K", "2M"): in claims "M" means million far more often than metres
// (a comparison with a length reads a spaced "m" as metres: resolveMetres).
func scaleSuffix(q *Quantity, rest string, glued bool) (string, bool) {
	sc, n, m := scaleWordAt(rest)
	if n == 0 {
		return rest, glued
	}
	q.Scale, q.Value = sc, q.Payload*sc
	if m && !glued {
		q.scaleWord = "m"
	}
	after := rest[n:]
	return strings.TrimSpace(after), after != "" && !startsWithSpace(after)
}

// scaleWordAt returns the scale of the word of letters rest opens with
// (lower-cased), its length in rest, and whether it is "m"; n is 0 when it
// is no scale word. As first written the word was the leading [a-z] of
// strings.ToLower(rest), its length counted there: where a letter other
// than ASCII follows the ASCII letters (a Kelvin sign lowers to "k") that
// is still what is done.
func scaleWordAt(rest string) (sc float64, n int, m bool) {
	i := 0
	for i < len(rest) && isASCIILetter(rest[i]) {
		i++
	}
	var word string
	if i == len(rest) || rest[i] < utf8.RuneSelf {
		if i > len("thousand") {
			return 0, 0, false // longer than every scale word
		}
		var buf [len("thousand")]byte
		for j := 0; j < i; j++ {
			buf[j] = rest[j] | 0x20
		}
		sc, ok := scaleWords[string(buf[:i])]
		if i == 0 || !ok {
			return 0, 0, false
		}
		return sc, i, i == 1 && buf[0] == 'm'
	}
	word, _ = firstWord(strings.ToLower(rest))
	sc, ok := scaleWords[word]
	if word == "" || !ok {
		return 0, 0, false
	}
	return sc, len(word), word == "m"
}

// kindSuffix reads "%", "percent", "x", "×", "times" into the kind and
// unit, and returns what follows.
func kindSuffix(q *Quantity, rest string) string {
	lower := strings.ToLower(rest)
	switch {
	case strings.HasPrefix(lower, "%"):
		q.Kind, q.Unit, rest = KindPercent, "%", rest[1:]
	case strings.HasPrefix(lower, "percentage point"):
		return rest // a unit of its own: unitWords
	case strings.HasPrefix(lower, "percent"), strings.HasPrefix(lower, "per cent"):
		q.Kind, q.Unit = KindPercent, "%"
		rest = strings.TrimPrefix(strings.TrimPrefix(lower, "percent"), "per cent")
	case q.Kind == KindNumber && (lower == "x" || lower == "×" || strings.HasPrefix(lower, "x ") || strings.HasPrefix(lower, "× ")):
		q.Kind, q.Unit = KindMultiplier, "x"
		_, size := utf8.DecodeRuneInString(rest)
		rest = rest[size:]
	case q.Kind == KindNumber && (lower == "times" || strings.HasPrefix(lower, "times ")):
		q.Kind, q.Unit, rest = KindMultiplier, "x", rest[len("times"):]
	}
	return strings.TrimSpace(rest)
}

// unitWords reads what follows the number and its scale, kind and
// currency: nothing, a unit of the table ("km", "percentage points"), or up
// to three words naming what is counted ("48 million passengers"). Money
// may be a rate ("$29/user", "$29 per seat"); a multiplier may carry one
// word ("3x faster"); a percentage nothing. Anything else is not one
// quantity.
func unitWords(q *Quantity, rest string, glued, explain bool) error {
	if rest == "" {
		return nil
	}
	// The error is built only when it is returned, and only when asked
	// for (parseQuantity).
	bad := func() error {
		if !explain {
			return ErrNotNumeric
		}
		return fmt.Errorf("%w: unexpected %q after the number", ErrNotNumeric, rest)
	}
	lower := strings.ToLower(rest)
	d, inTable := unitTable[lower]
	switch q.Kind {
	case KindMoney:
		if r, ok := strings.CutPrefix(lower, "/"); ok && isUnitWord(r) {
			return nil
		}
		if r, ok := strings.CutPrefix(lower, "per "); ok && isUnitWord(r) {
			return nil
		}
		if inTable && d.symbol == q.Unit {
			return nil // "$29 USD"
		}
		return bad()
	case KindMultiplier:
		if isUnitWord(rest) && !strings.ContainsAny(rest, " \t") {
			return nil // "3x faster"
		}
		return bad()
	case KindPercent:
		return bad()
	}
	if inTable {
		q.Unit = d.symbol
		if strings.HasPrefix(d.dimension, DimCurrency) {
			q.Kind = KindMoney
		}
		return nil
	}
	if glued {
		return bad() // "5.7abc": letters on the digits that are no unit
	}
	// Up to three words (strings.Fields), each a unit word.
	n := 0
	for w, tail := nextField(rest); w != ""; w, tail = nextField(tail) {
		if n++; n > 3 || !isUnitWord(w) {
			return bad()
		}
	}
	word, _ := firstWord(lower)
	if !isUnitWord(word) {
		return bad() // "one A'": the unit read would be "a", which is no unit
	}
	q.Unit = word
	if d, ok := unitTable[word]; ok {
		q.Unit = d.symbol
	}
	return nil
}

// notUnitWords are words that, after a number, join it to something else
// rather than name what it counts: "5.7 or 9", "five point seven", "1 in 4".
var notUnitWords = map[string]bool{
	"and": true, "or": true, "nor": true, "but": true, "to": true, "in": true, "of": true, "out": true,
	"per": true, "than": true, "vs": true, "versus": true, "point": true, "plus": true, "minus": true,
	"times": true, "by": true, "from": true, "x": true,
}

// isUnitWord reports a word that can name what a number counts: letters
// (with inner hyphens or apostrophes, or "a/b"), and no number word or
// connective.
func isUnitWord(w string) bool {
	// Trailing apostrophes and hyphens are not inner: "A'" is "a".
	w = strings.ToLower(strings.TrimRight(w, ".,;:)'’-/"))
	if w == "" || notUnitWords[w] || scaleWords[w] != 0 || fractionWords[w] != 0 {
		return false
	}
	if _, small := smallNumbers[w]; small {
		return false
	}
	for i, r := range w {
		letter := unicode.IsLetter(r)
		inner := i > 0 && (r == '-' || r == '\'' || r == '’' || r == '/')
		if !letter && !inner {
			return false
		}
	}
	return true
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
	num := shortest
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

// shortest writes v in the fewest digits that read back as v once v is
// rounded to 15 significant digits, so that arithmetic noise does not show
// (0.285, not 0.28500000000000003; 0.3, not 0.30000000000000004).
func shortest(v float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if err != nil || math.IsInf(r, 0) {
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
