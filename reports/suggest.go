package reports

import (
	"errors"
	"sort"
	"strings"
)

// Suggest is the name of names closest to a misspelled one (at most a
// third of its letters edited, or a name it is a prefix of), or "".
func Suggest(name string, names []string) string {
	best, bestD := "", len(name)/3+1
	for _, n := range names {
		d := editDistance(name, n)
		if strings.HasPrefix(n, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unknownMetric is the error for a metric name not in known: a suggestion
// when one is close, else every name.
func unknownMetric(name string, known []string, more string) string {
	if s := Suggest(name, known); s != "" {
		return "unknown metric " + quote(name) + ": did you mean " + quote(s) + "?"
	}
	return "unknown metric " + quote(name) + " (known: " + strings.Join(known, ", ") + more + ")"
}

func quote(s string) string { return `"` + s + `"` }

// UnknownSlices names, for each gate over a slice no claim is in, the
// slices of that key that exist (a misspelt slice value is a usage error,
// not a gate that fails as undefined).
func UnknownSlices(gates []Gate, s *Summary) error {
	var msgs []string
	for _, g := range gates {
		for _, o := range []*Operand{&g.Left, g.Right} {
			if o == nil || o.Slice == "all" || s.Slices[o.Slice] != nil {
				continue
			}
			key, _, _ := strings.Cut(o.Slice, "=")
			var same []string
			for name := range s.Slices {
				if strings.HasPrefix(name, key+"=") {
					same = append(same, name)
				}
			}
			sort.Strings(same)
			m := "gate " + g.Expr + ": no claim is in slice " + o.Slice
			if sg := Suggest(o.Slice, same); sg != "" {
				m += ": did you mean " + sg + "?"
			}
			if len(same) == 0 {
				m += " (no " + key + "= slice at all)"
			} else {
				m += " (" + key + " slices: " + strings.Join(same, ", ") + ")"
			}
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}
