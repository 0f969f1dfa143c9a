package extract

import (
	"testing"

	"github.com/claimaudit/claimaudit/claims"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func one(t *testing.T, text, query string) claims.Claim {
	t.Helper()
	cs := Extract(Output{ID: "o", Text: text, Query: query}, ExtractOptions{}, nil)
	require.Len(t, cs, 1, text)
	return cs[0]
}

func quantityOf(c claims.Claim) string {
	if c.Qualifiers.Quantity == nil {
		return ""
	}
	return c.Qualifiers.Quantity.Str
}

// A quantity given as alternatives keeps every value, whatever carries
// the unit; a span of another number in the sentence is not the quantity.
func TestAlternativeValues(t *testing.T) {
	for text, want := range map[string]string{
		"The permit costs €30 or €45 per year.":           "€30 or €45",
		"Interest is 3.5% or 4% depending on the term.":   "3.5% or 4%",
		"The ferry leaves 2 or 3 times a day.":            "2 or 3 times",
		"Rent is between £900 and £1,100 a month.":        "between £900 and £1,100",
		"From 1990 to 1995, the mill employed 80 people.": "80 people",
	} {
		assert.Equal(t, want, quantityOf(one(t, text, "")), text)
	}
	c := one(t, "The permit costs €30 or €45 per year.", "")
	assert.Equal(t, "numeric", c.Type)
	assert.Equal(t, 30.0, c.Normalization.Value.Num, "the value is the first alternative's")
}

// A numeric claim gets the timeframe of the year or span of years it
// names; a number that is the quantity is no year.
func TestNumericTimeframe(t *testing.T) {
	for text, want := range map[string]*claims.Timeframe{
		"Exports rose 7% in 2018.":                          {Start: "2018-01-01", End: "2018-12-31"},
		"The index gained 40 points between 2001 and 2004.": {Start: "2001-01-01", End: "2004-12-31"},
		"Over 2016–2019 the firm opened 12 branches.":       {Start: "2016-01-01", End: "2019-12-31"},
		"The tank held 1500 litres in 2019.":                {Start: "2019-01-01", End: "2019-12-31"},
		"The price rose from $1500 to $2000.":               nil,
	} {
		assert.Equal(t, want, one(t, text, "").Timeframe, text)
	}
}

// Places after in/across/throughout are the location; months, languages,
// quarters and places joined by "or" are not.
func TestLocationQualifier(t *testing.T) {
	for text, want := range map[string]string{
		"Wages in Western Australia rose 3%.":            "Western Australia",
		"Throughout Latin America, exports fell by 4%.":  "Latin America",
		"The dam is the largest in the Mekong basin.":    "Mekong basin",
		"The Bank of England is in London.":              "London",
		"Sales peaked in March.":                         "",
		"The manual is available in Spanish.":            "",
		"Revenue grew 5% in Q3.":                         "",
		"The fair moves between Lyon and Paris.":         "",
		"Branches operate in Lyon and Paris.":            "",
		"Unemployment in north-Eastern Nigeria hit 30%.": "north-Eastern Nigeria",
	} {
		assert.Equal(t, want, one(t, text, "").Qualifiers.Location, text)
	}
}

// A group noun after among/for/in, with what narrows it, is the
// population; its numbers are not the claim's quantity.
func TestPopulationQualifier(t *testing.T) {
	cases := []struct{ text, pop, quantity string }{
		{"Among older adults aged 75 to 84, falls rose 12%.", "older adults aged 75 to 84", "12%"},
		{"The vaccine is free for pregnant women.", "pregnant women", ""},
		{"Anaemia affects 30% of infants in rural areas.", "", "30%"},
		{"The rate among smokers over 50 was 18%.", "smokers over 50", "18%"},
		{"The bus runs for 40 minutes.", "", "40 minutes"},
	}
	for _, tc := range cases {
		c := one(t, tc.text, "")
		assert.Equal(t, tc.pop, c.Qualifiers.Population, tc.text)
		if tc.quantity != "" {
			assert.Equal(t, tc.quantity, quantityOf(c), tc.text)
		}
	}
}

// A query of one or two content words is answered by a claim that shares
// one of them (a plural or -s folded); longer queries still need two.
func TestShortQueryDirectAnswer(t *testing.T) {
	assert.True(t, isDirectAnswer("The clinic is on Elm Road.", "Where is the clinic?"))
	assert.True(t, isDirectAnswer("Bikes are allowed on trains.", "Are bikes allowed?"))
	assert.True(t, isDirectAnswer("Our offices close early.", "When does the office close?"))
	assert.False(t, isDirectAnswer("The gym opens early.", "Where is the clinic?"))
	assert.False(t, isDirectAnswer("The clinic has a garden.", "What vaccines does the clinic offer children?"))
	assert.True(t, isDirectAnswer("The clinic offers flu vaccines.", "What vaccines does the clinic offer children?"))
	assert.Equal(t, "critical", one(t, "Dr. Okafor leads the lab.", "Who runs the lab?").Importance)
}

// A meta or politeness opener is dropped and the claim after it kept;
// without "that" or a colon the sentence stays an imperative, and an
// opener with nothing after it is no claim.
func TestMetaOpeners(t *testing.T) {
	for text, want := range map[string]string{
		"Be advised that the road is closed at night.":       "The road is closed at night.",
		"It's worth mentioning that the hall seats 500.":     "The hall seats 500.",
		"We should point out that the library has no café.":  "The library has no café.",
		"FYI: the shuttle stops at the airport.":             "The shuttle stops at the airport.",
		"However, please note that the museum charges $12.":  "The museum charges $12.",
		"As mentioned earlier, the bridge spans 400 metres.": "The bridge spans 400 metres.",
	} {
		assert.Equal(t, want, one(t, text, "").Text, text)
	}
	for _, text := range []string{"Please note the opening hours.", "Remember your ticket.", "Note that.", "Keep in mind that!"} {
		assert.Empty(t, Extract(Output{ID: "o", Text: text}, ExtractOptions{}, nil), text)
	}
}
