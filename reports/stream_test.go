package reports

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/claimaudit/claimaudit/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// variedRecords are n records of run "r" with every column the outcomes
// read in its several states (null or set, evidence with and without gold
// evidence and spans, metadata, rules), ids from first on.
func variedRecords(seed uint64, first, n int) []Record {
	rng := rand.New(rand.NewPCG(seed, 48))
	str := func(s string) *string { return &s }
	f := func(x float64) *float64 { return &x }
	b := func(x bool) *bool { return &x }
	labels := []string{"supported", "unsupported", "insufficient"}
	out := make([]Record, n)
	for i := range out {
		r := Record{ClaimID: fmt.Sprintf("c_%06d", first+i), SourceID: fmt.Sprintf("out_%d", (first+i)/3), Text: fmt.Sprintf("claim text %d", first+i),
			ClaimType: []string{"fact", "numeric", "temporal"}[rng.IntN(3)], Importance: []string{"minor", "major", "critical"}[rng.IntN(3)],
			Temperature: 0.5 + rng.Float64(), LatencyMS: rng.Float64() * 30, Verifier: "lexical", RunID: "r", RunInstance: "inst",
			StartedAt: 1700000000000, ClaimIndex: int64(first + i), Action: "accept", Verdict: "ok", Rationale: "because"}
		if rng.IntN(5) > 0 {
			r.GoldLabel = str(labels[rng.IntN(3)])
		}
		if rng.IntN(10) > 0 {
			r.LogitSupported, r.LogitUnsupp, r.LogitInsuff = f(rng.NormFloat64()), f(rng.NormFloat64()), f(rng.NormFloat64())
			r.Confidence = f(rng.Float64())
		}
		if r.LogitSupported == nil {
			r.Abstained, r.AbstainReason = true, str("error")
		} else if rng.IntN(4) == 0 {
			r.Abstained, r.AbstainReason = true, str([]string{"low_confidence", "no_evidence"}[rng.IntN(2)])
		} else {
			p := labels[rng.IntN(3)]
			r.PredictedLabel = str(p)
			if r.GoldLabel != nil {
				r.Correct = b(p == *r.GoldLabel)
			}
		}
		for j := range rng.IntN(4) {
			e := Evidence{DocID: fmt.Sprintf("d%d", rng.IntN(20)), Start: int64(j), End: int64(j + 5), Score: rng.Float64(), PassageID: "p", Snippet: "snippet"}
			if rng.IntN(2) == 0 {
				e.SpanID = str(fmt.Sprintf("s%d", rng.IntN(20)))
			}
			r.Evidence = append(r.Evidence, e)
		}
		if rng.IntN(3) == 0 {
			r.GoldEvidence = []string{fmt.Sprintf("d%d", rng.IntN(20)), fmt.Sprintf("s%d", rng.IntN(20))}
		}
		if rng.IntN(2) == 0 {
			r.Meta = map[string]string{"topic": []string{"a", "b"}[rng.IntN(2)], "lang": "en"}
		}
		if rng.IntN(6) == 0 && r.LogitSupported != nil {
			r.Rule, r.RuleLabel, r.VerifierLabel = str("hedged"), str("insufficient"), str(labels[rng.IntN(3)])
			r.Flags = []string{"hedged"}
		}
		out[i] = r
	}
	return out
}

func writeRecords(t *testing.T, name string, rs []Record) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	w, err := NewParquetWriter[Record](path, Meta{RunID: "r"})
	require.NoError(t, err)
	require.NoError(t, w.Write(rs...))
	require.NoError(t, w.Close())
	return path
}

// TestReadShardsStreamsWhatWholeRecordsGive: the outcomes, temperatures
// and listed errors ReadShards streams from the columns it reads are
// those of every record read whole (ReadParquet, Shards.Add), reduced as
// the options say: over two files, across scan batches and row groups.
func TestReadShardsStreamsWhatWholeRecordsGive(t *testing.T) {
	a := writeRecords(t, "a.parquet", variedRecords(1, 0, 2*scanBatch+37))
	b := writeRecords(t, "b.parquet", variedRecords(2, 5000, scanBatch-1))
	files := []string{a, b}
	whole := &Shards{}
	seen := map[string]string{}
	for _, f := range files {
		rs, err := ReadParquet[Record](f)
		require.NoError(t, err)
		require.NoError(t, whole.Add(f, rs, seen))
	}
	require.NotEmpty(t, whole.Errors())

	for _, o := range []ReadOptions{{}, {SliceBy: []string{"topic"}}, {SliceBy: []string{"topic", "absent"}, Folds: 5, Seed: 9}, {Folds: 10, Seed: 1}} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			got, err := ReadShards(files, o)
			require.NoError(t, err)
			require.Len(t, got.Outcomes, len(whole.Outcomes))
			for i, w := range whole.Outcomes {
				w.Meta = SliceMeta(w.Meta, o.SliceBy)
				if o.Folds >= 2 {
					w.Fold, w.ID = int8(metrics.FoldOf(w.ID, o.Seed, o.Folds)+1), ""
				}
				require.Equal(t, w, got.Outcomes[i], "outcome %d", i)
			}
			assert.Equal(t, whole.Temperatures, got.Temperatures)
			assert.Equal(t, whole.RunID, got.RunID)
			// The errors report.html lists are the whole records: text,
			// snippets and all.
			assert.Equal(t, whole.Errors(), got.Errors())
			assert.NotEmpty(t, got.Errors()[0].Text)
			wi, wok := whole.Instance()
			gi, gok := got.Instance()
			assert.Equal(t, wi, gi)
			assert.Equal(t, wok, gok)
		})
	}
	// The cross-fit over the compact outcomes (folds set, ids dropped) is
	// the cross-fit over the whole records'.
	got, err := ReadShards(files, ReadOptions{Folds: 5, Seed: 9})
	require.NoError(t, err)
	opts := metrics.CrossFitOptions{K: 5, Seed: 9, Min: 20}
	assert.Equal(t, metrics.CrossFit(whole.Outcomes, opts), metrics.CrossFit(got.Outcomes, opts))
}

// TestReadShardsRefusesAsAddDoes: a claim in two files, a row of another
// run and a record metrics cannot use are ShardErrors naming the file and
// the 1-based row, as when the records are read whole.
func TestReadShardsRefusesAsAddDoes(t *testing.T) {
	base := variedRecords(3, 0, scanBatch+10)
	a := writeRecords(t, "a.parquet", base)
	dup := variedRecords(4, 900, 50) // c_000900… are in a too
	otherRun := variedRecords(5, 9000, scanBatch+3)
	otherRun[scanBatch+1].RunID = "other"
	badT := variedRecords(6, 9000, 30)
	badT[17].Temperature = 0
	for name, c := range map[string]struct {
		second []Record
		row    int
		msg    string
	}{
		"claim twice":    {dup, 1, "claim c_000900 is also in " + a},
		"another run":    {otherRun, scanBatch + 2, "run other, but earlier rows are run r"},
		"bad temperture": {badT, 18, "temperature 0 is not a positive finite number"},
	} {
		t.Run(name, func(t *testing.T) {
			b := writeRecords(t, "b.parquet", c.second)
			_, err := ReadShards([]string{a, b}, ReadOptions{Folds: 5})
			var se *ShardError
			require.True(t, errors.As(err, &se), "%v", err)
			assert.Equal(t, b, se.File)
			assert.Equal(t, c.row, se.Row)
			assert.ErrorContains(t, err, c.msg)
		})
	}
}

// TestReadRecordsAt: whole records at chosen rows, in the order asked,
// from any row group; a row past the end is an error.
func TestReadRecordsAt(t *testing.T) {
	rs := variedRecords(7, 0, 3*scanBatch)
	p := writeRecords(t, "r.parquet", rs)
	rows := []int64{2500, 3, 1024, 3, 0, int64(len(rs) - 1)}
	got, err := ReadRecordsAt(p, rows)
	require.NoError(t, err)
	all, err := ReadParquet[Record](p)
	require.NoError(t, err)
	for i, r := range rows {
		assert.Equal(t, all[r], got[i], "row %d", r)
	}
	_, err = ReadRecordsAt(p, []int64{int64(len(rs))})
	assert.ErrorContains(t, err, "no row")
}

// TestClaimSetHashCollision: the claim set keeps hashes, so a hash seen
// before is checked against the ids in the files (earlier files whole,
// the current one before the row): two ids of one hash are not a
// duplicate, an id read before is, in another file or the same one.
func TestClaimSetHashCollision(t *testing.T) {
	ra, rb := variedRecords(8, 0, scanBatch+20), variedRecords(9, 5000, 10)
	a, b := writeRecords(t, "a.parquet", ra), writeRecords(t, "b.parquet", rb)
	for name, c := range map[string]struct {
		id   string
		fi   int
		row  int64
		file string
		dup  bool
	}{
		"collision, no such id before": {rb[3].ClaimID, 1, 3, "", false},
		"the id earlier in its file":   {rb[3].ClaimID, 1, 5, b, true},
		"the id in an earlier file":    {ra[scanBatch+7].ClaimID, 1, 0, a, true},
		"collision in the first file":  {ra[scanBatch+7].ClaimID, 0, scanBatch + 7, "", false},
	} {
		t.Run(name, func(t *testing.T) {
			s := newClaimSet([]string{a, b}, 0)
			// As if another id of the same hash had been read.
			s.ids[maphash.String(s.seed, c.id)] = 0
			file, dup := s.add(c.id, c.fi, c.row)
			assert.Equal(t, c.dup, dup)
			assert.Equal(t, c.file, file)
		})
	}
	// Without a hash seen before, no file is read.
	s := newClaimSet([]string{"/nonexistent.parquet"}, 0)
	_, dup := s.add("c_1", 0, 0)
	assert.False(t, dup)
}
