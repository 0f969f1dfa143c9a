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
	// file and row locate the record when it was read in part
	// (ScanRecords): readBack reads it whole.
	file int
	row  int64
}

// NewErrorPicker keeps up to n records.
func NewErrorPicker(n int) *ErrorPicker { return &ErrorPicker{n: n} }

// Add offers a record.
func (p *ErrorPicker) Add(r Record) { p.addAt(r, 0, 0) }

// addAt offers a record read in part, at row of file (an index into the
// files readBack is then given).
func (p *ErrorPicker) addAt(r Record, file int, row int64) {
	p.seen++
	if r.Correct == nil || *r.Correct || r.Confidence == nil || p.n <= 0 {
		return
	}
	p.keep = append(p.keep, pickedRecord{r: r, order: p.seen, file: file, row: row})
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

// readBack replaces the kept records, read in part, with the whole
// records at their places in files.
func (p *ErrorPicker) readBack(files []string) error {
	p.trim()
	rows := make([][]int64, len(files))
	for _, k := range p.keep {
		rows[k.file] = append(rows[k.file], k.row)
	}
	for fi, f := range files {
		recs, err := ReadRecordsAt(f, rows[fi])
		if err != nil {
			return err
		}
		j := 0
		for i := range p.keep {
			if p.keep[i].file == fi {
				p.keep[i].r = recs[j]
				j++
			}
		}
	}
	return nil
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
