package reports

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeTestRecords(t *testing.T, n int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records.parquet")
	w, err := NewParquetWriter[Record](path, Meta{RunID: "r"})
	require.NoError(t, err)
	for i := 0; i < n; i++ {
		z := float64(i % 7)
		g := "supported"
		require.NoError(t, w.Write(Record{ClaimID: fmt.Sprintf("c%d", i), Text: "a claim", GoldLabel: &g, Temperature: 1,
			LogitSupported: &z, LogitUnsupp: &z, LogitInsuff: &z, RunID: "r",
			Evidence: []Evidence{{DocID: "d", Start: 0, End: 3, Score: 1.5}}}))
	}
	require.NoError(t, w.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// withNumRows rewrites the footer of a Parquet file so it claims n rows.
func withNumRows(t *testing.T, b []byte, n int64) []byte {
	t.Helper()
	size := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	footer := b[len(b)-8-size : len(b)-8]
	var md format.FileMetaData
	require.NoError(t, thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md))
	md.NumRows = n
	for i := range md.RowGroups {
		md.RowGroups[i].NumRows = n
	}
	nf, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	require.NoError(t, err)
	out := append(append([]byte(nil), b[:len(b)-8-size]...), nf...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(nf)))
	return append(out, "PAR1"...)
}

// TestReadParquetDamage: a damaged records file is an error naming it,
// never a panic or an allocation the footer asks for (2^60 rows).
func TestReadParquetDamage(t *testing.T) {
	good := writeTestRecords(t, 200)
	rows, err := ReadParquet[Record](writeFile(t, good))
	require.NoError(t, err)
	require.Len(t, rows, 200)

	cases := map[string][]byte{
		"footer says 2^60 rows": withNumRows(t, good, 1<<60),
		"footer says 1e9 rows":  withNumRows(t, good, 1e9),
		"footer says -1 rows":   withNumRows(t, good, -1),
		"truncated":             good[:len(good)/2],
		"no footer":             good[:len(good)-8],
	}
	rng := rand.New(rand.NewPCG(18, 2))
	for i := 0; i < 150; i++ {
		b := bytes.Clone(good)
		off := rng.IntN(len(b))
		b[off] ^= byte(1 + rng.IntN(255))
		cases[fmt.Sprintf("byte %d flipped", off)] = b
	}
	failed := 0
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			rows, err := ReadParquet[Record](writeFile(t, b))
			if err != nil {
				failed++
				assert.Contains(t, err.Error(), "records.parquet")
				return
			}
			// Undetected damage must still give rows a caller can check.
			assert.LessOrEqual(t, len(rows), 200)
			for _, r := range rows {
				_ = CheckRecord(r)
			}
		})
	}
	t.Logf("%d of %d damaged files refused", failed, len(cases))
}

func writeFile(t *testing.T, b []byte) string {
	path := filepath.Join(t.TempDir(), "records.parquet")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return path
}

func TestCheckRecord(t *testing.T) {
	z := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name string
		r    Record
		ok   bool
	}{
		{"fine", Record{Temperature: 1.5, LogitSupported: z(1), LogitUnsupp: z(2), LogitInsuff: z(3)}, true},
		{"no logits (adjudication failed)", Record{Temperature: 1}, true},
		{"temperature 0", Record{Temperature: 0}, false},
		{"temperature missing is 0", Record{}, false},
		{"temperature NaN", Record{Temperature: math.NaN()}, false},
		{"temperature Inf", Record{Temperature: math.Inf(1)}, false},
		{"temperature negative", Record{Temperature: -1}, false},
		{"logit NaN", Record{Temperature: 1, LogitSupported: z(math.NaN()), LogitUnsupp: z(0), LogitInsuff: z(0)}, false},
		{"logit 1e308 overflows at a low temperature", Record{Temperature: 1, LogitSupported: z(1e308), LogitUnsupp: z(1e308), LogitInsuff: z(0)}, false},
		{"two of three logits", Record{Temperature: 1, LogitSupported: z(1), LogitUnsupp: z(1)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckRecord(c.r)
			if c.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
