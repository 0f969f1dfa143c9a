package jsonl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type numbered struct {
	no   int
	text string
}

func readAll(t testing.TB, r io.Reader, max int) ([]numbered, []int) {
	lr := NewLineReader(r, max)
	var lines []numbered
	var tooLong []int
	for {
		b, n, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return lines, tooLong
		}
		if errors.Is(err, ErrLineTooLong) {
			tooLong = append(tooLong, n)
			continue
		}
		if errors.Is(err, ErrNotText) {
			return lines, tooLong // the reading stops at a line that is not text
		}
		require.NoError(t, err)
		lines = append(lines, numbered{n, string(b)})
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []numbered
	}{
		{"empty", "", nil},
		{"only blank lines", "\n\n  \r\n\t\n", nil},
		{"no final newline", "a\nb", []numbered{{1, "a"}, {2, "b"}}},
		{"CRLF", "a\r\nb\r\n", []numbered{{1, "a"}, {2, "b"}}},
		{"BOM stripped at the start of every line (files joined with cat)", "\ufeff{}\n\ufeff{}\n", []numbered{{1, "{}"}, {2, "{}"}}},
		{"blank lines keep numbering", "a\n\n\nb\n", []numbered{{1, "a"}, {4, "b"}}},
		{"lone CR inside kept", "a\rb\n", []numbered{{1, "a\rb"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, tooLong := readAll(t, strings.NewReader(tt.in), 0)
			assert.Equal(t, tt.want, got)
			assert.Empty(t, tooLong)
		})
	}
}

func TestLineReaderTooLongLineIsSkipped(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nafter\n" + strings.Repeat("y", 101)
	got, tooLong := readAll(t, strings.NewReader(in), 100)
	assert.Equal(t, []numbered{{1, "short"}, {2, strings.Repeat("x", 100)}, {3, "after"}}, got)
	assert.Equal(t, []int{4}, tooLong)
}

func TestLineReader64MiBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 64 MiB")
	}
	big := bytes.Repeat([]byte("a"), 64<<20)
	in := io.MultiReader(strings.NewReader("first\n"), bytes.NewReader(big), strings.NewReader("\nlast\n"))
	lr := NewLineReader(in, 0)
	b, n, err := lr.Next()
	require.NoError(t, err)
	assert.Equal(t, "first", string(b))
	assert.Equal(t, 1, n)
	b, n, err = lr.Next()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Len(t, b, 64<<20)
	b, n, err = lr.Next()
	require.NoError(t, err)
	assert.Equal(t, "last", string(b))
	assert.Equal(t, 3, n)
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n\ufeffc"))
	f.Add([]byte("\ufeff\r\n"))
	f.Add([]byte{0, '\n', 0xff, '\r'})
	f.Fuzz(func(t *testing.T, in []byte) {
		got, tooLong := readAll(t, bytes.NewReader(in), 64)
		phys := strings.Split(string(in), "\n")
		last := 0
		for _, l := range got {
			require.Greater(t, l.no, last, "line numbers increase")
			require.LessOrEqual(t, l.no, len(phys))
			want := strings.TrimSuffix(strings.TrimPrefix(phys[l.no-1], "\ufeff"), "\r")
			require.Equal(t, want, l.text, "line %d is its physical line less BOM and one CR", l.no)
			require.NotEmpty(t, strings.TrimSpace(l.text), "blank lines are skipped")
			require.LessOrEqual(t, len(l.text), 64)
			last = l.no
		}
		physical := len(phys)
		for _, n := range tooLong {
			require.LessOrEqual(t, n, physical)
		}
	})
}

// A stream that is not text stops at its first line: an endless one
// (/dev/zero, /dev/urandom) is refused, not read to a newline that never
// comes.
func TestEachStopsOnAStreamThatIsNotText(t *testing.T) {
	for name, r := range map[string]io.Reader{
		"zeros":                   io.LimitReader(zeroes{}, 1<<40),
		"blank lines, then zeros": io.MultiReader(strings.NewReader("\n \n"), io.LimitReader(zeroes{}, 1<<40)),
		"first line at cap":       io.MultiReader(strings.NewReader(strings.Repeat("a", 200)), strings.NewReader("\n{}\n")),
	} {
		t.Run(name, func(t *testing.T) {
			var errs ErrorList
			calls := 0
			n, err := Each(context.Background(), r, "f.jsonl", 100, &errs, func(Record) { calls++ })
			if err != nil || n != 1 || calls != 0 || errs.Total != 1 || !errors.Is(errs.Errors[0], ErrNotText) {
				t.Fatalf("n %d, calls %d, err %v, errors %v", n, calls, err, errs.Errors)
			}
		})
	}
	// A control byte on a later line (random bytes after a few short
	// lines that happened to be clean) stops the reading there too.
	var later ErrorList
	calls := 0
	n, err := Each(context.Background(), strings.NewReader("{}\n{}\n\x01x\n{}\n"), "f.jsonl", 100, &later, func(Record) { calls++ })
	if err != nil || n != 3 || calls != 2 || later.Total != 1 || !errors.Is(later.Errors[0], ErrNotText) {
		t.Fatalf("n %d, calls %d, err %v, errors %v", n, calls, err, later.Errors)
	}
	// A later overlong line is that line's error only.
	var errs ErrorList
	calls = 0
	Each(context.Background(), strings.NewReader("{}\n"+strings.Repeat("a", 200)+"\n{}\n"), "f.jsonl", 100, &errs, func(Record) { calls++ })
	if calls != 2 || errs.Total != 1 || !errors.Is(errs.Errors[0], ErrLineTooLong) {
		t.Fatalf("calls %d, errors %v", calls, errs.Errors)
	}
}

type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) { clear(p); return len(p), nil }
