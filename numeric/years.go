package numeric

// YearsIn returns the years a text names ("in 2023", "2021-07-01",
// "FY2022" does not count), in order, without repeats. A four-digit
// number written with a separator ("2,023") is a count, not a year.
func YearsIn(text string) []int {
	var out []int
	for b, e := nextYear(text, 0); b >= 0; b, e = nextYear(text, e) {
		if b > 0 && (text[b-1] == ',' || text[b-1] == '.' || text[b-1] == '$') {
			continue
		}
		if e < len(text) && (text[e] == '%' || (text[e] == ',' && e+1 < len(text) && text[e+1] >= '0' && text[e+1] <= '9')) {
			continue
		}
		y := int(text[b]-'0')*1000 + int(text[b+1]-'0')*100 + int(text[b+2]-'0')*10 + int(text[b+3]-'0')
		dup := false
		for _, o := range out {
			dup = dup || o == y
		}
		if !dup {
			out = append(out, y)
		}
	}
	return out
}
