package numeric

import (
	"regexp"
	"strconv"
)

var reYearOrDate = regexp.MustCompile(`\b(1[5-9]\d{2}|20\d{2})(?:-\d{2}-\d{2})?\b`)

// YearsIn returns the years a text names ("in 2023", "2021-07-01",
// "FY2022" does not count), in order, without repeats. A four-digit
// number written with a separator ("2,023") is a count, not a year.
func YearsIn(text string) []int {
	var out []int
	for _, loc := range reYearOrDate.FindAllStringIndex(text, -1) {
		if loc[0] > 0 && (text[loc[0]-1] == ',' || text[loc[0]-1] == '.' || text[loc[0]-1] == '$') {
			continue
		}
		if loc[1] < len(text) && (text[loc[1]] == '%' || (text[loc[1]] == ',' && loc[1]+1 < len(text) && text[loc[1]+1] >= '0' && text[loc[1]+1] <= '9')) {
			continue
		}
		y, _ := strconv.Atoi(text[loc[0] : loc[0]+4])
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
