package numeric

import "strings"

// A unit of the table: its canonical symbol, the dimension it measures and
// its size in the dimension's base unit, so that a token in one unit is
// compared with a claim in another of the same dimension (100 ms = 0.1 s,
// 5 km = 5,000 m). Units outside the table are compared by name.
type unitDef struct {
	symbol    string
	dimension string
	factor    float64
}

// Dimensions of the unit table.
const (
	DimLength   = "length"
	DimMass     = "mass"
	DimTime     = "time"
	DimCurrency = "currency"
	DimPercent  = "percent"
	DimPoints   = "percentage points"
)

// unitTable maps every spelling (lower case) to its unit. Currencies have
// no rate between them: each is its own dimension's only unit, and "5
// dollars" is $5. Percent and percentage points do not convert into each
// other (a rise of 2 points is not a rise of 2%). "m" alone is metres only
// as a unit word after a space-separated number where the claim is a
// length; a number glued to "m" or "M" reads as millions (see
// resolveMetres).
var unitTable = func() map[string]unitDef {
	m := map[string]unitDef{}
	add := func(symbol, dim string, factor float64, spellings string) {
		d := unitDef{symbol: symbol, dimension: dim, factor: factor}
		m[symbol] = d
		for _, s := range strings.Split(spellings, "|") {
			if s != "" {
				m[s] = d
			}
		}
	}
	add("mm", DimLength, 0.001, "millimetre|millimetres|millimeter|millimeters")
	add("cm", DimLength, 0.01, "centimetre|centimetres|centimeter|centimeters")
	add("m", DimLength, 1, "metre|metres|meter|meters")
	add("km", DimLength, 1000, "kilometre|kilometres|kilometer|kilometers|kms")
	add("in", DimLength, 0.0254, "inch|inches")
	add("ft", DimLength, 0.3048, "foot|feet")
	add("yd", DimLength, 0.9144, "yard|yards|yds")
	add("mi", DimLength, 1609.344, "mile|miles")
	add("mg", DimMass, 0.001, "milligram|milligrams|milligramme|milligrammes")
	add("g", DimMass, 1, "gram|grams|gramme|grammes")
	add("kg", DimMass, 1000, "kilogram|kilograms|kilogramme|kilogrammes|kilo|kilos|kgs")
	add("tonnes", DimMass, 1e6, "tonne|metric ton|metric tons")
	add("lb", DimMass, 453.59237, "lbs")
	add("oz", DimMass, 28.349523125, "ounce|ounces")
	add("ms", DimTime, 0.001, "millisecond|milliseconds|msec|msecs")
	add("s", DimTime, 1, "sec|secs|second|seconds")
	add("min", DimTime, 60, "mins|minute|minutes")
	add("h", DimTime, 3600, "hr|hrs|hour|hours")
	add("days", DimTime, 86400, "day")
	add("weeks", DimTime, 7*86400, "week|wk|wks")
	add("dollars", DimCurrency+" USD", 1, "dollar|usd|us$")
	add("euros", DimCurrency+" EUR", 1, "euro|eur")
	add("pounds", DimCurrency+" GBP", 1, "pound|gbp")
	add("%", DimPercent, 1, "percent|per cent|pct")
	add("pp", DimPoints, 1, "percentage point|percentage points|pts|p.p.")
	return m
}()

// timeUnits are the time spellings ParseQuantity has always normalised
// ("seconds" → "s"), for TimeUnit.
var timeUnits = func() map[string]string {
	m := map[string]string{}
	for w, d := range unitTable {
		if d.dimension == DimTime && d.factor <= 3600 {
			m[w] = d.symbol
		}
	}
	return m
}()

// CanonicalUnit returns the table's symbol for a unit as written
// ("kilometres" → "km", "seconds" → "s", "percent" → "%"), and whether the
// table knows it. An unknown unit is returned lower-cased.
func CanonicalUnit(unit string) (string, bool) {
	u := strings.ToLower(strings.TrimSpace(unit))
	if d, ok := unitTable[u]; ok {
		return d.symbol, true
	}
	return u, false
}

// UnitDimension returns the dimension of a canonical unit ("km" → "length")
// and whether the table knows it.
func UnitDimension(unit string) (string, bool) {
	d, ok := unitTable[unit]
	return d.dimension, ok
}

// convert returns v in unit from expressed in unit to, when both are in the
// table and measure the same dimension.
func convert(v float64, from, to string) (float64, bool) {
	a, okA := unitTable[from]
	b, okB := unitTable[to]
	if !okA || !okB || a.dimension != b.dimension {
		return 0, false
	}
	return v * a.factor / b.factor, true
}

// resolveMetres reads a quantity whose scale was a lone "m" ("5000 m")
// as metres rather than millions, for comparison with a length.
func resolveMetres(q Quantity) Quantity {
	if q.scaleWord != "m" || q.Kind != KindNumber || q.Unit != "" {
		return q
	}
	q.Value, q.Scale, q.Unit, q.scaleWord = q.Payload, 1, "m", ""
	return q
}
