package reports

import (
	"cmp"
	"slices"
)

// ReportErrors is how many misclassified claims report.html lists.
const ReportErrors = 25

// ErrorPicker keeps, from records streamed through Add, the n answered,
// labelled claims that were wrong with the highest calibrated confidence
// (ties in input order), in bounded memory.
type ErrorPicker struct {
	n    int
	seen int
	keep []pickedRecord
}

type pickedRecord struct {
	r     Record
	order int
}

// NewErrorPicker keeps up to n records.
func NewErrorPicker(n int) *ErrorPicker { return &ErrorPicker{n: n} }

// Add offers a record.
func (p *ErrorPicker) Add(r Record) {
	p.seen++
	if r.Correct == nil || *r.Correct || r.Confidence == nil || p.n <= 0 {
		return
	}
	p.keep = append(p.keep, pickedRecord{r: r, order: p.seen})
	if len(p.keep) >= 2*p.n+64 {
		p.trim()
	}
}

func (p *ErrorPicker) trim() {
	slices.SortStableFunc(p.keep, func(a, b pickedRecord) int {
		if c := cmp.Compare(*b.r.Confidence, *a.r.Confidence); c != 0 {
			return c
		}
		return cmp.Compare(a.order, b.order)
	})
	if len(p.keep) > p.n {
		p.keep = p.keep[:p.n]
	}
}

// Records returns the kept records, most confident first.
func (p *ErrorPicker) Records() []Record {
	p.trim()
	out := make([]Record, len(p.keep))
	for i, k := range p.keep {
		out[i] = k.r
	}
	return out
}
