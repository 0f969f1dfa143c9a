package numeric

import (
	"fmt"
	"math"
	"strings"
)

// Comparator is how a claim relates its number to the true value: "more
// than 100" is a lower bound, "up to 100" an upper bound, "about 100" a
// value within a tolerance, and a bare "100" the value itself.
type Comparator string

// Comparators.
const (
	CmpValue   Comparator = ""         // 100: the value, within the policy's tolerance
	CmpApprox  Comparator = "approx"   // about / approximately / roughly / around 100: within tolerance
	CmpAbove   Comparator = "above"    // more than / over / above / exceeds 100: actual > 100
	CmpAtLeast Comparator = "at_least" // at least / no fewer than / no less than 100: actual >= 100
	CmpBelow   Comparator = "below"    // less than / fewer than / under / below 100: actual < 100
	CmpAtMost  Comparator = "at_most"  // up to / at most / no more than 100: actual <= 100
	CmpNearly  Comparator = "nearly"   // nearly / almost 100: 100(1−ρ) <= actual <= 100
	CmpBetween Comparator = "between"  // between 10 and 20: 10 <= actual <= 20
)

// IsBound reports a comparator that states a bound rather than a value.
func (c Comparator) IsBound() bool {
	return c != CmpValue && c != CmpApprox
}

// comparatorPhrases maps the words written before a number to the
// comparator, longest phrases first so that "no more than" is not read as
// "more than".
var comparatorPhrases = []struct {
	phrase string
	cmp    Comparator
}{
	{"no fewer than", CmpAtLeast}, {"no less than", CmpAtLeast}, {"no more than", CmpAtMost},
	{"in excess of", CmpAbove}, {"greater than", CmpAbove}, {"upwards of", CmpAbove},
	{"more than", CmpAbove}, {"exceeding", CmpAbove}, {"exceeded", CmpAbove}, {"exceeds", CmpAbove},
	{"exceed", CmpAbove}, {"just over", CmpAbove}, {"over", CmpAbove}, {"above", CmpAbove},
	{"at least", CmpAtLeast}, {"a minimum of", CmpAtLeast}, {"minimum of", CmpAtLeast},
	{"fewer than", CmpBelow}, {"less than", CmpBelow}, {"just under", CmpNearly}, {"under", CmpBelow},
	{"below", CmpBelow}, {"up to", CmpAtMost}, {"at most", CmpAtMost}, {"a maximum of", CmpAtMost},
	{"maximum of", CmpAtMost}, {"as many as", CmpAtMost}, {"as much as", CmpAtMost},
	{"nearly", CmpNearly}, {"almost", CmpNearly}, {"approximately", CmpApprox}, {"approx.", CmpApprox},
	{"approx", CmpApprox}, {"about", CmpApprox}, {"around", CmpApprox}, {"roughly", CmpApprox},
	{"circa", CmpApprox}, {"ca.", CmpApprox}, {"close to", CmpApprox}, {"some", CmpApprox},
	{"an estimated", CmpApprox}, {"estimated", CmpApprox}, {"~", CmpApprox}, {"≈", CmpApprox},
	{"between", CmpBetween},
}

// negatedTail reports a negation ending text, before a comparator phrase:
// "not more than", "did not exceed", "isn't over", "never above". ("no more
// than" is listed as a phrase.) It is the regular expression
// (?i)(?:\bnot|n't|\bnever)\s*$ without scanning the whole text.
func negatedTail(text string) bool {
	t := strings.TrimRight(text, " \t\n\f\r")
	tail := asciiLower(t[max(0, len(t)-5):])
	switch {
	case strings.HasSuffix(tail, "n't"):
		return true
	case strings.HasSuffix(tail, "not"):
		return len(t) == 3 || !isWordByte(t[len(t)-4])
	case strings.HasSuffix(tail, "never"):
		return len(t) == 5 || !isWordByte(t[len(t)-6])
	}
	return false
}

// asciiLower lowercases the ASCII letters of s, byte for byte.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// longestPhrase bounds how far back comparatorAt looks.
var longestPhrase = func() int {
	n := 0
	for _, p := range comparatorPhrases {
		n = max(n, len(p.phrase))
	}
	return n
}()

// comparatorAt returns the comparator written just before position end of
// text ("more than" in "more than 100"), whether a negation precedes it,
// and the phrase as written.
func comparatorAt(text string, end int) (cmp Comparator, negated bool, phrase string) {
	before := strings.TrimRight(text[:end], " \t")
	tail := len(before) - min(len(before), longestPhrase)
	lower := asciiLower(before[tail:]) // the phrases' letters are ASCII
	for _, p := range comparatorPhrases {
		if !strings.HasSuffix(lower, p.phrase) {
			continue
		}
		start := len(before) - len(p.phrase)
		if start > 0 && p.phrase != "~" && p.phrase != "≈" && isWordByte(before[start-1]) {
			continue // "moreover 5", "hover"
		}
		return p.cmp, negatedTail(before[:start]), before[start:]
	}
	return CmpValue, false, ""
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// comparatorOf maps a qualifier word stripped by ParseQuantity.
func comparatorOf(qualifier string) Comparator {
	q := strings.ToLower(qualifier)
	for _, p := range comparatorPhrases {
		if p.phrase == q {
			return p.cmp
		}
	}
	return CmpValue
}

// Holds decides whether the true value actual satisfies what q claims: the
// bound for a bound (strict or not, as written), the interval for a range or
// "between", and for a value (bare or "about") a relative difference of at
// most relTol (seed 001's tolerance). A negated comparator ("not more than")
// holds where the plain one does not. The reason says what was compared.
func (q Quantity) Holds(actual, relTol float64) (bool, string) {
	ok, rel := q.holds(actual, relTol, true)
	if ok {
		return true, fmt.Sprintf("%s is %s", FormatNumber(actual), rel)
	}
	return false, fmt.Sprintf("%s is not %s", FormatNumber(actual), rel)
}

// HoldsFor is Holds without the reason, for callers that test many values
// and explain few (fact matching).
func (q Quantity) HoldsFor(actual, relTol float64) bool {
	ok, _ := q.holds(actual, relTol, false)
	return ok
}

// holds is Holds; the description of the relation is built only when
// describe is set (matching asks many facts and needs few reasons).
func (q Quantity) holds(actual, relTol float64, describe bool) (bool, string) {
	if !describe {
		v := q.Value
		var ok bool
		switch {
		case q.Kind == KindRange || q.Cmp == CmpBetween:
			ok = actual >= q.Lo-tiny(q.Lo) && actual <= q.Hi+tiny(q.Hi)
		case q.Cmp == CmpAbove:
			ok = actual > v
		case q.Cmp == CmpAtLeast:
			ok = actual >= v-tiny(v)
		case q.Cmp == CmpBelow:
			ok = actual < v
		case q.Cmp == CmpAtMost:
			ok = actual <= v+tiny(v)
		case q.Cmp == CmpNearly:
			lo := v - relTol*math.Abs(v)
			ok = actual <= v+tiny(v) && actual >= lo-tiny(lo)
		default:
			ok = ValuesMatch(v, actual, relTol)
		}
		return ok != q.Negated, ""
	}
	v := q.Value
	var ok bool
	var rel string
	switch {
	case q.Kind == KindRange || q.Cmp == CmpBetween:
		ok, rel = actual >= q.Lo-tiny(q.Lo) && actual <= q.Hi+tiny(q.Hi), fmt.Sprintf("in [%s, %s]", FormatNumber(q.Lo), FormatNumber(q.Hi))
	case q.Cmp == CmpAbove:
		ok, rel = actual > v, "more than "+FormatNumber(v)
	case q.Cmp == CmpAtLeast:
		ok, rel = actual >= v-tiny(v), "at least "+FormatNumber(v)
	case q.Cmp == CmpBelow:
		ok, rel = actual < v, "less than "+FormatNumber(v)
	case q.Cmp == CmpAtMost:
		ok, rel = actual <= v+tiny(v), "at most "+FormatNumber(v)
	case q.Cmp == CmpNearly:
		lo := v - relTol*math.Abs(v)
		ok, rel = actual <= v+tiny(v) && actual >= lo-tiny(lo), fmt.Sprintf("nearly %s (in [%s, %s])", FormatNumber(v), FormatNumber(lo), FormatNumber(v))
	default:
		ok, rel = ValuesMatch(v, actual, relTol), fmt.Sprintf("within %g%% of %s", relTol*100, FormatNumber(v))
	}
	if q.Negated {
		ok, rel = !ok, "not "+rel
	}
	return ok, rel
}

// tiny absorbs floating-point noise in comparisons ("at least 0.3" holds for 0.1+0.2).
func tiny(v float64) float64 { return 1e-9 * math.Max(1, math.Abs(v)) }

// ValuesMatch is seed 001's tolerance test: |claimed − actual| / |actual| <=
// relTol (equality when actual is 0).
func ValuesMatch(claimed, actual, relTol float64) bool {
	if actual == 0 {
		return claimed == 0
	}
	return math.Abs(claimed-actual)/math.Abs(actual) <= relTol+1e-12
}

// ComparatorPhrases returns the phrases that, written before a number, set
// its comparator ("more than", "up to", "about"), longest first.
func ComparatorPhrases() []string {
	out := make([]string, len(comparatorPhrases))
	for i, p := range comparatorPhrases {
		out[i] = p.phrase
	}
	return out
}
