package benchdata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// valueKind decides how an attribute's value is written and compared.
type valueKind int

const (
	kCount   valueKind = iota // 5,700 staff
	kMoney                    // $1.9 billion
	kPercent                  // 12%
	kMeasure                  // 312 square kilometres, 18.5 metres
	kYear                     // founded in 1898
	kText                     // headquarters in Veltrano
	kDefine                   // X is a public research university
	kPolicy                   // visitors must register at the front desk
)

// attr is an attribute of an entity kind with its templates. In templates
// {E} is the entity, {V} the value and {Y} the year.
type attr struct {
	name     string
	kind     valueKind
	unit     string  // unit word written after the value
	lo, hi   float64 // value range
	decimals int
	scale    float64 // money: 1e6 or 1e9
	yearly   bool    // one value per year, stated with its year
	docs     []string
	claims   []string // paraphrases for claims
	negClaim string   // a negated claim (kYear, kText, kDefine, kPolicy)
	// For percent changes: the direction word in docs and claims, and its antonym.
	up, down string
	options  []string // kText/kDefine/kPolicy values to choose from
	claimTy  string   // claim type
}

type kind struct {
	name     string
	suffixes []string
	attrs    []attr
}

var kinds = []kind{
	{name: "company", suffixes: []string{"Rail", "Foods", "Systems", "Logistics", "Energy", "Textiles"}, attrs: []attr{
		{name: "employees", kind: kCount, unit: "staff", lo: 200, hi: 40000, yearly: true, claimTy: "numeric",
			docs:   []string{"{E} employed {V} staff at the end of {Y}.", "In {Y}, {E} had a workforce of {V} staff.", "The workforce of {E} stood at {V} staff in {Y}."},
			claims: []string{"{E} employed {V} staff in {Y}.", "In {Y} {E} had {V} staff.", "{E} had a workforce of {V} staff in {Y}."}},
		{name: "revenue", kind: kMoney, lo: 0.2, hi: 9.5, decimals: 1, scale: 1e9, yearly: true, claimTy: "numeric",
			docs:   []string{"Revenue at {E} was {V} in {Y}.", "{E} reported revenue of {V} for {Y}."},
			claims: []string{"{E} had revenue of {V} in {Y}.", "In {Y}, {E} earned {V} in revenue."}},
		{name: "growth", kind: kPercent, lo: 2, hi: 19, decimals: 0, yearly: true, claimTy: "numeric", up: "rose", down: "fell",
			docs:   []string{"Sales at {E} {D} by {V} in {Y}.", "In {Y}, sales at {E} {D} {V}."},
			claims: []string{"Sales at {E} {D} by {V} in {Y}.", "In {Y} sales at {E} {D} by {V}."}},
		{name: "founded", kind: kYear, lo: 1850, hi: 2015, claimTy: "temporal",
			docs:     []string{"{E} was founded in {V}.", "Founded in {V}, {E} is a private firm."},
			claims:   []string{"{E} was founded in {V}.", "{E} dates back to {V}."},
			negClaim: "{E} was not founded in {V}."},
		{name: "headquarters", kind: kText, claimTy: "fact",
			docs:     []string{"{E} has its headquarters in {V}.", "The head office of {E} is in {V}."},
			claims:   []string{"{E} is headquartered in {V}.", "The headquarters of {E} are in {V}."},
			negClaim: "{E} is not headquartered in {V}."},
	}},
	{name: "city", suffixes: []string{"", "Harbour", "Falls", "Ridge"}, attrs: []attr{
		{name: "population", kind: kCount, unit: "residents", lo: 8000, hi: 2500000, yearly: true, claimTy: "numeric",
			docs:   []string{"{E} had {V} residents in {Y}.", "The census of {Y} counted {V} residents in {E}."},
			claims: []string{"{E} had {V} residents in {Y}.", "In {Y} the population of {E} was {V} residents."}},
		{name: "area", kind: kMeasure, unit: "square kilometres", lo: 15, hi: 900, claimTy: "numeric",
			docs:   []string{"{E} covers {V}.", "The municipality of {E} spans {V}."},
			claims: []string{"{E} covers an area of {V}.", "{E} spans {V}."}},
		{name: "founded", kind: kYear, lo: 1100, hi: 1950, claimTy: "temporal",
			docs:     []string{"{E} received its town charter in {V}.", "{E} was chartered in {V}."},
			claims:   []string{"{E} was chartered in {V}.", "{E} received its charter in {V}."},
			negClaim: "{E} was not chartered in {V}."},
		{name: "mayor", kind: kText, claimTy: "fact",
			docs:     []string{"The mayor of {E} is {V}.", "{V} serves as mayor of {E}."},
			claims:   []string{"{V} is the mayor of {E}.", "The mayor of {E} is {V}."},
			negClaim: "{V} is not the mayor of {E}."},
	}},
	{name: "lake", suffixes: []string{"Lake", "Reservoir"}, attrs: []attr{
		{name: "area", kind: kMeasure, unit: "square kilometres", lo: 3, hi: 600, claimTy: "numeric",
			docs:   []string{"{E} covers {V}.", "The surface of {E} measures {V}."},
			claims: []string{"{E} covers {V}.", "{E} has a surface area of {V}."}},
		{name: "depth", kind: kMeasure, unit: "metres", lo: 4, hi: 120, decimals: 1, claimTy: "numeric",
			docs:   []string{"The average depth of {E} is {V}.", "{E} is {V} deep on average."},
			claims: []string{"{E} is {V} deep on average.", "The average depth of {E} is {V}."}},
		{name: "nitrate", kind: kMeasure, unit: "mg/L", lo: 2, hi: 60, decimals: 1, yearly: true, claimTy: "numeric",
			docs:   []string{"Nitrate in {E} averaged {V} in {Y}.", "In {Y}, nitrate levels in {E} averaged {V}."},
			claims: []string{"Nitrate in {E} averaged {V} in {Y}.", "In {Y} the nitrate level of {E} averaged {V}."}},
		{name: "type", kind: kDefine, claimTy: "definitional", options: []string{"a freshwater lake", "a saltwater lake", "an artificial reservoir"},
			docs:     []string{"{E} is {V}.", "Geographers classify {E} as {V}."},
			claims:   []string{"{E} is {V}.", "{E} is classified as {V}."},
			negClaim: "{E} is not {V}."},
	}},
	{name: "university", suffixes: []string{"University", "Institute of Technology", "College"}, attrs: []attr{
		{name: "students", kind: kCount, unit: "students", lo: 1500, hi: 60000, yearly: true, claimTy: "numeric",
			docs:   []string{"{E} enrolled {V} students in {Y}.", "In {Y}, {V} students were enrolled at {E}."},
			claims: []string{"{E} enrolled {V} students in {Y}.", "In {Y} {E} had {V} students."}},
		{name: "international", kind: kPercent, lo: 4, hi: 40, decimals: 0, yearly: true, claimTy: "numeric",
			docs:   []string{"International students made up {V} of enrolment at {E} in {Y}.", "In {Y}, {V} of students at {E} came from abroad."},
			claims: []string{"International students were {V} of enrolment at {E} in {Y}.", "In {Y} {V} of students at {E} were international."}},
		{name: "founded", kind: kYear, lo: 1700, hi: 2005, claimTy: "temporal",
			docs:     []string{"{E} was established in {V}.", "{E} opened its doors in {V}."},
			claims:   []string{"{E} was established in {V}.", "{E} opened in {V}."},
			negClaim: "{E} was not established in {V}."},
		{name: "type", kind: kDefine, claimTy: "definitional", options: []string{"a public research university", "a private liberal arts college", "a technical university"},
			docs:     []string{"{E} is {V}.", "{E} is known as {V}."},
			claims:   []string{"{E} is {V}.", "{E} is known as {V}."},
			negClaim: "{E} is not {V}."},
	}},
	{name: "hospital", suffixes: []string{"Hospital", "Medical Centre", "Clinic"}, attrs: []attr{
		{name: "beds", kind: kCount, unit: "beds", lo: 40, hi: 2200, claimTy: "numeric",
			docs:   []string{"{E} has {V} beds.", "With {V} beds, {E} serves the region."},
			claims: []string{"{E} has {V} beds.", "{E} operates {V} beds."}},
		{name: "vaccinated", kind: kCount, unit: "patients", lo: 500, hi: 90000, yearly: true, claimTy: "numeric",
			docs:   []string{"{E} vaccinated {V} patients against influenza in {Y}.", "In {Y}, {V} patients received flu vaccines at {E}."},
			claims: []string{"{E} vaccinated {V} patients in {Y}.", "In {Y} {E} vaccinated {V} patients against influenza."}},
		{name: "policy", kind: kPolicy, claimTy: "policy", options: []string{"visitors must register at the front desk", "patients must bring photo identification", "staff must complete annual safety training"},
			docs:     []string{"At {E}, {V}.", "The rules of {E} state that {V}."},
			claims:   []string{"At {E}, {V}.", "{E} requires that {V}."},
			negClaim: "At {E}, {N}."},
	}},
}

var syllables = []string{"ka", "lo", "mi", "ne", "su", "ta", "ve", "ro", "dan", "mor", "lin", "tes", "qua", "bri", "zen", "hal", "vor", "ith", "el", "ar"}

// name makes a pronounceable capitalised name of 2–3 syllables.
func name(rng *rand.Rand) string {
	n := 2 + rng.IntN(2)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(syllables[rng.IntN(len(syllables))])
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

func personName(rng *rand.Rand) string {
	first := []string{"Ada", "Bruno", "Clara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kira", "Luis", "Mira", "Nils", "Olga", "Pavel"}
	return first[rng.IntN(len(first))] + " " + name(rng)
}

// value draws a value in [lo, hi] rounded to the attribute's decimals
// (counts to three significant figures, as reports print them).
func (a attr) value(rng *rand.Rand) float64 {
	v := a.lo + (a.hi-a.lo)*rng.Float64()
	switch a.kind {
	case kCount:
		p := math.Pow(10, math.Floor(math.Log10(v))-2)
		return math.Round(v/p) * p
	case kYear:
		return math.Round(v)
	}
	p := math.Pow(10, float64(a.decimals))
	return math.Round(v*p) / p
}

// format writes a value as documents and plain claims do.
func (a attr) format(v float64) string {
	switch a.kind {
	case kCount:
		return commas(v)
	case kMoney:
		return fmt.Sprintf("$%s billion", trim(v, a.decimals))
	case kPercent:
		return trim(v, a.decimals) + "%"
	case kMeasure:
		return trim(v, a.decimals) + " " + a.unit
	case kYear:
		return fmt.Sprintf("%.0f", v)
	}
	return ""
}

func trim(v float64, decimals int) string {
	s := fmt.Sprintf("%.*f", decimals, v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func commas(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
