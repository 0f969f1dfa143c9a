// Package numeric reads numbers as written and decides whether one number
// verifies another: the numeric verification policies of seed 000 (exact,
// rounded, abbr, tolerance, percent, range, ratio, year, auto).
//
// Numbers: ParseQuantity reads "5.7", "1.5K", "2 million", "12%", "85-95%",
// "$29", "3x", "2021-07-01", "one third" and the like; FormatQuantity writes
// a value back so that ParseQuantity reads it. Mentions: FindNumbers finds
// the numeric expressions of a text by seed 001's patterns (FirstMention,
// the main one; YearsIn, the years it names). Comparators: a number carries
// what the text says about it ("more than", "up to", "nearly", "between",
// "about", negated by "not"), and Quantity.Holds decides a bound by the
// bound, never by a tolerance. Policies: Check and CheckQuantity apply a
// policy and fail closed.
//
// The package imports none of claims, extract or lint: they build on it.
package numeric
