package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"

	"github.com/claimaudit/claimaudit/claims"
)

// Golden is one case of the golden extraction set: a piece of a model
// output and the atomic claims a correct extractor gives for it.
type Golden struct {
	ID   string `json:"id"`
	Case string `json:"case"` // what it exercises: acknowledgement, hedge, pronoun…
	Text string `json:"text"`
	// Query is the question the output answers, when the case needs one
	// (a claim's importance depends on it).
	Query  string      `json:"query,omitempty"`
	Claims []GoldClaim `json:"claims"`
}

// GoldClaim is an expected claim; the attributes are checked only where
// given, and "none" expects the attribute absent. Timeframe is written
// START/END (as_of, when expected, after an @: START/END@AS_OF).
type GoldClaim struct {
	Text       string   `json:"text"`
	Type       string   `json:"type,omitempty"`
	Quantity   string   `json:"quantity,omitempty"`
	Unit       string   `json:"unit,omitempty"`
	Cite       []string `json:"cite,omitempty"`
	Location   string   `json:"location,omitempty"`
	Population string   `json:"population,omitempty"`
	Timeframe  string   `json:"timeframe,omitempty"`
	Importance string   `json:"importance,omitempty"`
}

// attrNames are the attributes checked of a matched claim, in the order
// they are printed.
var attrNames = []string{"type", "quantity", "unit", "cite", "location", "population", "timeframe", "importance"}

// readGolden reads a golden set (JSONL), refusing a malformed line by
// number.
func readGolden(path string) ([]Golden, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var gs []Golden
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var g Golden
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if g.ID == "" || g.Text == "" {
			return nil, fmt.Errorf("%s:%d: id and text are required", path, line)
		}
		gs = append(gs, g)
	}
	return gs, sc.Err()
}

// normalize is the form two claim texts are compared in: lower case,
// white space folded, typographic quotes made plain, closing punctuation
// dropped. Nothing else is forgiven: a claim that keeps an opener,
// resolves a pronoun differently or loses a word does not match.
func normalize(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(strings.ToLower(s))
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(".!?;:", r) })
}

// Extractor turns one golden case (its text, and its query) into claims.
type Extractor func(g Golden) ([]claims.Claim, error)

// counts are matched, predicted and expected claims, and attribute checks.
type counts struct {
	tp, pred, gold int
	attrOK, attrN  map[string]int
}

func (c *counts) add(o counts) {
	c.tp += o.tp
	c.pred += o.pred
	c.gold += o.gold
	for k, v := range o.attrN {
		c.attrN[k] += v
		c.attrOK[k] += o.attrOK[k]
	}
}

func newCounts() counts { return counts{attrOK: map[string]int{}, attrN: map[string]int{}} }

func (c counts) precision() float64 { return rate(c.tp, c.pred) }
func (c counts) recall() float64    { return rate(c.tp, c.gold) }

// rate is a/b, or 1 when b is 0 (nothing predicted: no false claim; nothing
// expected: nothing missed).
func rate(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// miss is a difference between extracted and expected claims.
type miss struct {
	id, kind, text string
}

// scoreOne matches predicted claims to expected ones one to one by
// normalised text and checks the attributes of each match.
func scoreOne(g Golden, got []claims.Claim) (counts, []miss) {
	c := newCounts()
	c.pred, c.gold = len(got), len(g.Claims)
	used := make([]bool, len(g.Claims))
	var misses []miss
	for _, p := range got {
		j := slices.IndexFunc(g.Claims, func(gc GoldClaim) bool { return normalize(gc.Text) == normalize(p.Text) })
		for j >= 0 && used[j] {
			k := slices.IndexFunc(g.Claims[j+1:], func(gc GoldClaim) bool { return normalize(gc.Text) == normalize(p.Text) })
			if k < 0 {
				j = -1
				break
			}
			j += 1 + k
		}
		if j < 0 {
			misses = append(misses, miss{g.ID, "extra", p.Text})
			continue
		}
		used[j] = true
		c.tp++
		checkAttrs(g.ID, g.Claims[j], p, &c, &misses)
	}
	for j, u := range used {
		if !u {
			misses = append(misses, miss{g.ID, "missed", g.Claims[j].Text})
		}
	}
	return c, misses
}

func checkAttrs(id string, want GoldClaim, p claims.Claim, c *counts, misses *[]miss) {
	var quantity string
	if q := p.Qualifiers.Quantity; q != nil {
		if q.IsNum {
			quantity = fmt.Sprint(q.Num)
		} else {
			quantity = q.Str
		}
	}
	for _, a := range []struct{ name, want, got string }{
		{"type", want.Type, p.Type},
		{"quantity", want.Quantity, quantity},
		{"unit", want.Unit, p.Qualifiers.Unit},
		{"cite", strings.Join(want.Cite, ","), strings.Join(p.Cite, ",")},
		{"location", want.Location, p.Qualifiers.Location},
		{"population", want.Population, p.Qualifiers.Population},
		{"timeframe", want.Timeframe, timeframeOf(p.Timeframe)},
		{"importance", want.Importance, p.Importance},
	} {
		if a.want == "" {
			continue
		}
		if a.want == "none" {
			a.want = ""
		}
		c.attrN[a.name]++
		if a.want == a.got {
			c.attrOK[a.name]++
		} else {
			*misses = append(*misses, miss{id, a.name, fmt.Sprintf("%q: want %q, got %q", p.Text, a.want, a.got)})
		}
	}
}

// timeframeOf writes a claim's timeframe as GoldClaim.Timeframe does.
func timeframeOf(tf *claims.Timeframe) string {
	if tf == nil || *tf == (claims.Timeframe{}) {
		return ""
	}
	s := tf.Start + "/" + tf.End
	if tf.AsOf != "" {
		s += "@" + tf.AsOf
	}
	return s
}

// result is a golden set scored.
type result struct {
	all    counts
	cases  map[string]counts
	order  []string
	misses []miss
}

func score(gs []Golden, ex Extractor) (result, error) {
	r := result{all: newCounts(), cases: map[string]counts{}}
	for _, g := range gs {
		got, err := ex(g)
		if err != nil {
			return r, fmt.Errorf("%s: %w", g.ID, err)
		}
		c, m := scoreOne(g, got)
		r.all.add(c)
		cc, ok := r.cases[g.Case]
		if !ok {
			cc = newCounts()
			r.order = append(r.order, g.Case)
		}
		cc.add(c)
		r.cases[g.Case] = cc
		r.misses = append(r.misses, m...)
	}
	return r, nil
}

func (r result) print(w io.Writer, verbose bool) {
	fmt.Fprintf(w, "%-16s %6s %6s %6s %9s %7s\n", "case", "gold", "pred", "match", "precision", "recall")
	for _, k := range r.order {
		c := r.cases[k]
		fmt.Fprintf(w, "%-16s %6d %6d %6d %9.3f %7.3f\n", k, c.gold, c.pred, c.tp, c.precision(), c.recall())
	}
	c := r.all
	fmt.Fprintf(w, "%-16s %6d %6d %6d %9.3f %7.3f\n", "all", c.gold, c.pred, c.tp, c.precision(), c.recall())
	for _, a := range attrNames {
		if n := c.attrN[a]; n > 0 {
			fmt.Fprintf(w, "%s agrees on %d of %d matched claims (%.3f)\n", a, c.attrOK[a], n, rate(c.attrOK[a], n))
		}
	}
	if verbose {
		for _, m := range r.misses {
			fmt.Fprintf(w, "%s %-8s %s\n", m.id, m.kind, m.text)
		}
	}
}
