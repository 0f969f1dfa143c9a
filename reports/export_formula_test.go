package reports

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// The one CSV writer neutralizes every cell a spreadsheet would run as a
// formula, also after leading white space; numbers and plain text are left
// as they are, and a neutralized id reads back.
func TestCSVWriterNeutralizesFormulas(t *testing.T) {
	cases := map[string]string{
		"+SUM(A1:A9)": "'+SUM(A1:A9)", "=1+1": "'=1+1", "\t=1+1": "'\t=1+1", " =1+1": "' =1+1", "@cmd": "'@cmd",
		"-2+3": "'-2+3", "\rx": "'\rx", "\nx": "'\nx",
		"-0.5": "'-0.5", "12": "12", "plain text": "plain text", "": "", "a=b": "a=b",
	}
	for in, want := range cases {
		var b bytes.Buffer
		w := NewCSVWriter(&b, 1)
		if err := w.Write([]string{in, "-0.5"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		rec, err := csv.NewReader(&b).Read()
		if err != nil && in != "" {
			t.Fatalf("%q: %v", in, err)
		}
		if in == "" {
			continue
		}
		if rec[1] != "-0.5" {
			t.Errorf("a numeric column was changed: %q", rec[1])
		}
		if rec[0] != want {
			t.Errorf("%q written as %q, want %q", in, rec[0], want)
		}
		if got := UnneutralizeFormula(rec[0]); got != in {
			t.Errorf("%q reads back as %q", in, got)
		}
	}
}
