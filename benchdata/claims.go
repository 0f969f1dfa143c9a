package benchdata

import (
	"fmt"
	"github.com/claimaudit/claimaudit/label"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/claimaudit/claimaudit/claims"
)

type genClaim struct {
	claims.Claim
	label   label.Label
	variant string
}

type claimGen struct {
	w   *world
	rng *rand.Rand
	mix [3]float64
}

func (g *claimGen) next() genClaim {
	u := g.rng.Float64()
	var c genClaim
	ok := false
	for tries := 0; !ok; tries++ {
		switch {
		case u < g.mix[0]:
			c, ok = g.supported()
		case u < g.mix[0]+g.mix[1]:
			c, ok = g.unsupported()
		default:
			c, ok = g.insufficient()
		}
		if tries > 50 { // a world too small for the variant: fall back to a plain claim
			c, _ = g.supported()
			ok = true
		}
	}
	return c
}

// pick returns a random entity and one of its stated facts.
func (g *claimGen) pick() (entity, fact) {
	e := g.w.entities[g.rng.IntN(len(g.w.entities))]
	return e, e.facts[g.rng.IntN(len(e.facts))]
}

func (g *claimGen) template(ts []string) string { return ts[g.rng.IntN(len(ts))] }

// claim fills in the structured fields of a claim about e's fact f, written
// with value text v and numeric value num.
func (g *claimGen) claim(l label.Label, variant string, e entity, f fact, text string, v string, num float64, cite bool) genClaim {
	c := genClaim{label: l, variant: variant}
	c.Text = text
	c.Subject = e.name
	c.Predicate = f.a.name
	c.Type = f.a.claimTy
	c.Modality, c.Polarity = "assertion", "positive"
	if strings.Contains(text, " not ") || strings.Contains(text, " need not ") {
		c.Polarity = "negative"
	}
	switch {
	case c.Type == "numeric":
		c.Importance = "critical"
		c.Qualifiers.Quantity = claims.StrScalar(v)
		c.Qualifiers.Unit = f.a.unit
		if f.a.kind == kMoney {
			c.Qualifiers.Unit = "dollars"
		} else if f.a.kind == kPercent {
			c.Qualifiers.Unit = "%"
		}
		if !math.IsNaN(num) {
			c.Normalization.Value = claims.NumScalar(num)
		}
	case c.Type == "policy":
		c.Importance = "material"
	default:
		c.Importance = []string{"material", "minor"}[g.rng.IntN(2)]
	}
	if f.year != 0 && strings.Contains(text, fmt.Sprint(f.year)) {
		c.Timeframe = &claims.Timeframe{Start: fmt.Sprintf("%d-01-01", f.year), End: fmt.Sprintf("%d-12-31", f.year)}
	}
	c.Normalization.Entities = []string{e.name}
	if cite && g.rng.IntN(5) == 0 {
		c.Cite = []string{e.docID}
	}
	return c
}

func numeric(k valueKind) bool { return k <= kMeasure }

func sig2(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-1)
	return math.Round(v/p) * p
}

// formatAs writes v in one of the supported surface forms.
func formatAs(a *attr, v float64, form string) (string, bool) {
	switch form {
	case "plain":
		return a.format(v), true
	case "abbr":
		switch {
		case a.kind == kCount && v >= 1e6:
			return trim(v/1e6, 2) + " million", true
		case a.kind == kCount && v >= 1e4:
			return trim(v/1e3, 1) + "K", true
		case a.kind == kMoney:
			return "$" + commas(v*1000) + " million", true
		}
	case "qualified":
		w := sig2(v)
		if a.kind == kYear || w == 0 {
			return "", false
		}
		return "about " + a.format(w), true
	case "range":
		lo, hi := sig2(v*0.85), sig2(v*1.15)
		if lo >= v || hi <= v || a.kind == kYear {
			return "", false
		}
		switch a.kind {
		case kMeasure:
			return fmt.Sprintf("between %s and %s", trim(lo, a.decimals), a.format(hi)), true
		case kPercent:
			return fmt.Sprintf("between %s and %s", trim(lo, 1)+"%", trim(hi, 1)+"%"), true
		case kMoney:
			return fmt.Sprintf("between $%s billion and $%s billion", trim(lo, 2), trim(hi, 2)), true
		}
		return fmt.Sprintf("between %s and %s", commas(lo), commas(hi)), true
	case "percent-word":
		if a.kind == kPercent {
			return trim(v, a.decimals) + " percent", true
		}
	}
	return "", false
}

func (g *claimGen) supported() (genClaim, bool) {
	e, f := g.pick()
	t := g.template(f.a.claims)
	if !numeric(f.a.kind) {
		return g.claim(label.Supported, "paraphrase", e, f, fill(t, e.name, f, f.valueText()), f.valueText(), math.NaN(), true), true
	}
	form := []string{"plain", "plain", "abbr", "qualified", "range", "percent-word"}[g.rng.IntN(6)]
	v, ok := formatAs(f.a, f.value, form)
	if !ok {
		form, v = "plain", f.a.format(f.value)
	}
	return g.claim(label.Supported, form, e, f, fill(t, e.name, f, v), v, f.value, true), true
}

func (g *claimGen) unsupported() (genClaim, bool) {
	e, f := g.pick()
	t := g.template(f.a.claims)
	switch f.a.kind {
	case kText, kDefine, kPolicy:
		if g.rng.IntN(2) == 0 {
			return g.claim(label.Unsupported, "negation", e, f, fill(f.a.negClaim, e.name, f, f.text), f.text, math.NaN(), true), true
		}
		other := g.otherText(f)
		if other == f.text {
			return genClaim{}, false
		}
		return g.claim(label.Unsupported, "swapped-value", e, f, fill(t, e.name, f, other), other, math.NaN(), true), true
	case kYear:
		if g.rng.IntN(3) == 0 {
			return g.claim(label.Unsupported, "negation", e, f, fill(f.a.negClaim, e.name, f, f.valueText()), f.valueText(), math.NaN(), true), true
		}
		y := f.value + float64((3+g.rng.IntN(38))*(1-2*g.rng.IntN(2)))
		v := f.a.format(y)
		return g.claim(label.Unsupported, "wrong-year", e, f, fill(t, e.name, f, v), v, y, true), true
	}
	switch g.rng.IntN(4) {
	case 0: // swapped entity: another entity states another value for this attribute
		for _, j := range g.w.byKind[e.kind.name] {
			o := g.w.entities[j]
			if o.name == e.name {
				continue
			}
			for _, of := range o.facts {
				if of.a.name == f.a.name && of.year == f.year && math.Abs(of.value-f.value) > 0.3*math.Abs(of.value) {
					v := f.a.format(f.value)
					return g.claim(label.Unsupported, "swapped-entity", o, of, fill(t, o.name, of, v), v, f.value, true), true
				}
			}
			if g.rng.IntN(4) == 0 {
				break
			}
		}
		return genClaim{}, false
	case 1: // wrong year: another year's value
		for _, of := range e.facts {
			if of.a.name == f.a.name && of.year != 0 && of.year != f.year && math.Abs(of.value-f.value) > 0.07*math.Abs(f.value) {
				v := f.a.format(of.value)
				return g.claim(label.Unsupported, "wrong-year", e, f, fill(t, e.name, f, v), v, of.value, true), true
			}
		}
		return genClaim{}, false
	case 2: // antonym
		if f.dir != "" {
			g2 := f
			if f.dir == f.a.up {
				g2.dir = f.a.down
			} else {
				g2.dir = f.a.up
			}
			v := f.a.format(f.value)
			return g.claim(label.Unsupported, "antonym", e, f, fill(t, e.name, g2, v), v, f.value, true), true
		}
	}
	factor := 1 + (0.25+0.55*g.rng.Float64())*float64(1-2*g.rng.IntN(2))
	nv := f.a.round(f.value * factor)
	if math.Abs(nv-f.value) <= 0.15*math.Abs(f.value) {
		return genClaim{}, false
	}
	v := f.a.format(nv)
	return g.claim(label.Unsupported, "changed-value", e, f, fill(t, e.name, f, v), v, nv, true), true
}

func (g *claimGen) otherText(f fact) string {
	switch {
	case f.a.options != nil:
		return f.a.options[g.rng.IntN(len(f.a.options))]
	case f.a.name == "mayor":
		return personName(g.rng)
	}
	return g.w.cities[g.rng.IntN(len(g.w.cities))]
}

func (g *claimGen) insufficient() (genClaim, bool) {
	e, f := g.pick()
	switch g.rng.IntN(4) {
	case 0: // an entity the corpus does not know
		n := name(g.rng) + " " + e.kind.suffixes[g.rng.IntN(len(e.kind.suffixes))]
		n = strings.TrimSpace(n)
		if g.w.names[n] {
			return genClaim{}, false
		}
		ghost := entity{name: n, kind: e.kind}
		c := g.claim(label.Insufficient, "absent-entity", ghost, f, fill(g.template(f.a.claims), n, f, f.valueText()), f.valueText(), f.value, false)
		return c, true
	case 1: // an attribute the document never states
		for ai := range e.kind.attrs {
			a := &e.kind.attrs[ai]
			if e.stated[a.name] {
				continue
			}
			nf := g.w.facts(g.rng, a)[0]
			if a.yearly {
				nf.year = years[len(years)-1]
			}
			return g.claim(label.Insufficient, "absent-attribute", e, nf, fill(g.template(a.claims), e.name, nf, nf.valueText()), nf.valueText(), nf.value, true), true
		}
		return genClaim{}, false
	case 2: // a yearly value stated without its year, where the years differ
		if f.year == 0 {
			return genClaim{}, false
		}
		distinct := false
		for _, of := range e.facts {
			if of.a.name == f.a.name && of.year != f.year && of.value != f.value {
				distinct = true
			}
		}
		t := g.template(f.a.claims)
		if !distinct || !strings.Contains(t, "{Y}") {
			return genClaim{}, false
		}
		t = strings.TrimSpace(reNoYear.ReplaceAllString(t, ""))
		v := f.a.format(f.value)
		c := g.claim(label.Insufficient, "missing-timeframe", e, f, fill(t, e.name, f, v), v, f.value, true)
		return c, true
	}
	// Hedged: "may" makes a true statement underdetermined (seed 003).
	v := f.valueText()
	text := fill(g.template(f.a.claims), e.name, f, v)
	if !strings.HasPrefix(text, e.name) {
		text = strings.ToLower(text[:1]) + text[1:]
	}
	text = "It may be that " + text
	c := g.claim(label.Insufficient, "hedged", e, f, text, v, f.value, true)
	c.Modality = "possibility"
	return c, true
}
