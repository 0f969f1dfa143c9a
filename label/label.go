// Package label owns the three verdict labels — supported, unsupported,
// insufficient — once: their text forms, parsing (with FEVER's aliases
// SUPPORTS / REFUTES / NOT ENOUGH INFO), and their fixed order, which is
// the order of a verifier's three logits, of confusion matrices and of
// every report. It imports nothing, so every other package can use it.
package label

import (
	"fmt"
	"strings"
)

// Label is a verdict class; the zero value None means "no label" (a claim
// without gold, or an abstention).
type Label string

// The three labels, and None.
const (
	Supported    Label = "supported"
	Unsupported  Label = "unsupported"
	Insufficient Label = "insufficient"
	None         Label = ""
)

// All are the labels in logit order: All[i] is the label of logit i.
var All = [3]Label{Supported, Unsupported, Insufficient}

// Index is the label's position in All (its logit), or -1 for None or an
// invalid label.
func (l Label) Index() int {
	switch l {
	case Supported:
		return 0
	case Unsupported:
		return 1
	case Insufficient:
		return 2
	}
	return -1
}

// Valid reports whether l is one of the three labels.
func (l Label) Valid() bool { return l.Index() >= 0 }

// String is the label's text form ("" for None).
func (l Label) String() string { return string(l) }

// Of is the label of logit i, or None when i is out of range.
func Of(i int) Label {
	if i < 0 || i >= len(All) {
		return None
	}
	return All[i]
}

// aliases are the spellings Parse accepts for each label, in lower case:
// ours, then FEVER's.
var aliases = [3][]string{
	{"supported", "supports"},
	{"unsupported", "refutes", "refuted"},
	{"insufficient", "not enough info", "not enough information", "nei"},
}

// Aliases are the lower-case spellings Parse accepts for l (nil for None).
func (l Label) Aliases() []string {
	if i := l.Index(); i >= 0 {
		return append([]string(nil), aliases[i]...)
	}
	return nil
}

// Normalize folds case, underscores and runs of spaces, as Parse compares.
func Normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "_", " "))), " ")
}

// Parse accepts the three labels and FEVER's aliases (SUPPORTS, REFUTES,
// NOT ENOUGH INFO, NEI), case- and space-insensitively.
func Parse(s string) (Label, bool) {
	n := Normalize(s)
	for i, as := range aliases {
		for _, a := range as {
			if n == a {
				return All[i], true
			}
		}
	}
	return None, false
}

// Accepted describes what Parse accepts, for error messages.
const Accepted = "supported, unsupported, insufficient, or FEVER's SUPPORTS, REFUTES, NOT ENOUGH INFO"

// UnmarshalText parses with Parse; "" is None and an unknown label is an
// error.
func (l *Label) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*l = None
		return nil
	}
	v, ok := Parse(string(b))
	if !ok {
		return fmt.Errorf("%q is not a label (%s)", b, Accepted)
	}
	*l = v
	return nil
}
