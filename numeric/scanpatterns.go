package numeric

// The matchers of the patterns listed in scan.go, each at a start where the
// pattern can begin; -1 when it does not match there.

// trustScoreEnd: (?i)\b(?:trust\s+)?score:?\s*{num}\s?%
func trustScoreEnd(s string, p int) int {
	if !boundary(s, p) {
		return -1
	}
	if e := foldLit(s, p, "trust"); e >= 0 {
		if q := spacesEnd(s, e); q > e {
			if r := scoreEnd(s, q); r >= 0 {
				return r
			}
		}
	}
	return scoreEnd(s, p)
}

// scoreEnd: score:?\s*{num}\s?% (the colon and the spaces never give
// back: a digit must follow them).
func scoreEnd(s string, i int) int {
	if i = foldLit(s, i, "score"); i < 0 {
		return -1
	}
	if i < len(s) && s[i] == ':' {
		i++
	}
	if i = numEnd(s, spacesEnd(s, i)); i < 0 {
		return -1
	}
	return optSpace(s, i, func(j int) int {
		if j < len(s) && s[j] == '%' {
			return j + 1
		}
		return -1
	})
}

// averageEnd: (?i)\baverage(?:\s+of)?\s+{num}(?:\s?(?:%|percent\b))?
func averageEnd(s string, p int) int {
	if !boundary(s, p) {
		return -1
	}
	e := foldLit(s, p, "average")
	if e < 0 {
		return -1
	}
	if q := spacesEnd(s, e); q > e {
		if o := foldLit(s, q, "of"); o >= 0 {
			if r := averageNumEnd(s, o); r >= 0 {
				return r
			}
		}
	}
	return averageNumEnd(s, e)
}

func averageNumEnd(s string, i int) int {
	q := spacesEnd(s, i)
	if q == i {
		return -1
	}
	if q = numEnd(s, q); q < 0 {
		return -1
	}
	return withPercent(s, q, true, done)
}

// moneyEnd: [$€£]\s?{num}{scale}(?:\s?(?:/|per\s)\s?[A-Za-z]+)?
func moneyEnd(s string, p int) int {
	w := currencyWidth(s, p)
	if w == 0 {
		return -1
	}
	e := optSpace(s, p+w, func(j int) int { return numEnd(s, j) })
	if e < 0 {
		return -1
	}
	return withScale(s, e, false, func(j int) int { return perUnitEnd(s, j) })
}

// perUnitEnd: (?:\s?(?:/|per\s)\s?[A-Za-z]+)? at i; i when it is absent.
func perUnitEnd(s string, i int) int {
	r := optSpace(s, i, func(j int) int {
		switch {
		case j < len(s) && s[j] == '/':
			j++
		case literal(s, j, "per", false) >= 0 && j+3 < len(s) && isSpaceByte(s[j+3]):
			j += 4
		default:
			return -1
		}
		return optSpace(s, j, func(k int) int {
			if letterWidth(s, k, false) == 0 {
				return -1
			}
			for k < len(s) && isASCIILetter(s[k]) {
				k++
			}
			return k
		})
	})
	if r >= 0 {
		return r
	}
	return i
}

// betweenEnd: (?i)\bbetween\s+[$€£]?{num}{scale}(?:\s?(?:%|percent\b))?
// then betweenAndEnd.
func betweenEnd(s string, p int) int {
	if !boundary(s, p) {
		return -1
	}
	i := foldLit(s, p, "between")
	if i < 0 {
		return -1
	}
	q := spacesEnd(s, i)
	if q == i {
		return -1
	}
	e := currencyNumEnd(s, q)
	if e < 0 {
		return -1
	}
	return withScale(s, e, true, func(j int) int {
		return withPercent(s, j, true, func(k int) int { return betweenAndEnd(s, k) })
	})
}

// betweenAndEnd: \s+and\s+[$€£]?{num}{scale}(?:\s?(?:%|percent\b))?
// (?:\s+[A-Za-z][A-Za-z'-]*)?, all under (?i).
func betweenAndEnd(s string, i int) int {
	q := spacesEnd(s, i)
	if q == i {
		return -1
	}
	a := foldLit(s, q, "and")
	if a < 0 {
		return -1
	}
	if q = spacesEnd(s, a); q == a {
		return -1
	}
	e := currencyNumEnd(s, q)
	if e < 0 {
		return -1
	}
	return withScale(s, e, true, func(j int) int {
		return withPercent(s, j, true, func(k int) int { return trailingWordEnd(s, k) })
	})
}

// currencyNumEnd: [$€£]?{num}
func currencyNumEnd(s string, i int) int {
	if w := currencyWidth(s, i); w > 0 {
		if e := numEnd(s, i+w); e >= 0 {
			return e
		}
	}
	return numEnd(s, i)
}

// trailingWordEnd: (?:\s+[A-Za-z][A-Za-z'-]*)? under (?i); i when absent.
func trailingWordEnd(s string, i int) int {
	if e := wordEnd(s, i, true); e >= 0 {
		return e
	}
	return i
}

// wordEnd: \s+[A-Za-z][A-Za-z'-]* at i, or -1.
func wordEnd(s string, i int, fold bool) int {
	q := spacesEnd(s, i)
	if q == i {
		return -1
	}
	w := letterWidth(s, q, fold)
	if w == 0 {
		return -1
	}
	for q += w; q < len(s); q += w {
		if s[q] == '\'' || s[q] == '-' {
			w = 1
		} else if w = letterWidth(s, q, fold); w == 0 {
			break
		}
	}
	return q
}

// dashRangeEnd: \b{num}\s?(?:-|–|—)\s?{num}(?:\s?(?:%|percent\b))?
func dashRangeEnd(s string, p int) int {
	e := numEnd(s, p)
	if e < 0 {
		return -1
	}
	return optSpace(s, e, func(j int) int {
		w := dashWidth(s, j)
		if w == 0 {
			return -1
		}
		e2 := optSpace(s, j+w, func(k int) int { return numEnd(s, k) })
		if e2 < 0 {
			return -1
		}
		return withPercent(s, e2, false, done)
	})
}

// percentageEnd: (?i)\b{num}\s?(?:%|percent\b|per cent\b)
func percentageEnd(s string, p int) int {
	e := numEnd(s, p)
	if e < 0 {
		return -1
	}
	return optSpace(s, e, func(j int) int {
		if j < len(s) && s[j] == '%' {
			return j + 1
		}
		for _, w := range [...]string{"percent", "per cent"} {
			if k := foldLit(s, j, w); k >= 0 && boundary(s, k) {
				return k
			}
		}
		return -1
	})
}

// multiplierEnd: \b\d+(?:\.\d+)?\s?[x×](?:\s+[A-Za-z][A-Za-z'-]*\b|\s|$|[.,;])
func multiplierEnd(s string, p int) int {
	if p >= len(s) || !isDigit(s[p]) {
		return -1
	}
	e := fractionEnd(s, digitsEnd(s, p))
	return optSpace(s, e, func(j int) int {
		switch {
		case j < len(s) && s[j] == 'x':
			j++
		case literal(s, j, "×", false) >= 0:
			j += len("×")
		default:
			return -1
		}
		if k := boundedWordEnd(s, j); k >= 0 {
			return k
		}
		switch {
		case j == len(s):
			return j
		case isSpaceByte(s[j]) || s[j] == '.' || s[j] == ',' || s[j] == ';':
			return j + 1
		}
		return -1
	})
}

// boundedWordEnd: \s+[A-Za-z][A-Za-z'-]*\b at i, or -1. The word gives
// back its last characters until a boundary follows ("rock-" before a
// space ends at "rock").
func boundedWordEnd(s string, i int) int {
	e := wordEnd(s, i, false)
	if e < 0 {
		return -1
	}
	first := spacesEnd(s, i) + 1 // the word's first letter never gives back
	for k := e; k >= first; k-- {
		if boundary(s, k) {
			return k
		}
	}
	return -1
}

var timeUnitWords = [...]struct {
	word   string
	plural bool // the word takes an optional s
}{{"ms", false}, {"millisecond", true}, {"second", true}, {"sec", true}, {"minute", true}, {"min", true}, {"hour", true}, {"hr", true}}

// timeEnd: (?i)\b{num}\s?(?:ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b
func timeEnd(s string, p int) int {
	e := numEnd(s, p)
	if e < 0 {
		return -1
	}
	return optSpace(s, e, func(j int) int {
		for _, u := range timeUnitWords {
			k := foldLit(s, j, u.word)
			if k < 0 {
				continue
			}
			if u.plural {
				// A long s is no word character: "hourſ" may fail \b
				// where "hour" passes it.
				if k2 := foldLit(s, k, "s"); k2 >= 0 && boundary(s, k2) {
					return k2
				}
			}
			if boundary(s, k) {
				return k
			}
		}
		return -1
	})
}

// countEnd: \b{num}{scale}(?:\s+[A-Za-z][A-Za-z'-]*){1,3}
func countEnd(s string, p int) int {
	e := numEnd(s, p)
	if e < 0 {
		return -1
	}
	return withScale(s, e, false, func(j int) int {
		j = wordEnd(s, j, false)
		for n := 1; n < maxCountWords && j >= 0; n++ {
			next := wordEnd(s, j, false)
			if next < 0 {
				break
			}
			j = next
		}
		return j
	})
}

// bareNumberEnd: \b{num}{scale}
func bareNumberEnd(s string, p int) int {
	e := numEnd(s, p)
	if e < 0 {
		return -1
	}
	return withScale(s, e, false, done)
}

// versionEnd: (?i)\bv(?:ersion\s)?\d+(?:\.\d+)+
func versionEnd(s string, p int) int {
	if p >= len(s) || s[p]|0x20 != 'v' || !boundary(s, p) {
		return -1
	}
	if e := foldLit(s, p+1, "ersion"); e >= 0 && e < len(s) && isSpaceByte(s[e]) {
		if r := versionNumberEnd(s, e+1); r >= 0 {
			return r
		}
	}
	return versionNumberEnd(s, p+1)
}

// versionNumberEnd: \d+(?:\.\d+)+
func versionNumberEnd(s string, i int) int {
	e := digitsEnd(s, i)
	if e == i {
		return -1
	}
	n := 0
	for e+1 < len(s) && s[e] == '.' && isDigit(s[e+1]) {
		e = digitsEnd(s, e+2)
		n++
	}
	if n == 0 {
		return -1
	}
	return e
}
