package reports

import (
	"fmt"
	"hash/maphash"

	"github.com/claimaudit/claimaudit/metrics"
)

// Shards are the records of one run read back, possibly from several files
// (shards of the run): the outcomes metrics need and each claim's applied
// temperature, in the order the files were given.
type Shards struct {
	RunID        string
	Outcomes     []metrics.Outcome
	Temperatures []float64
	errors       *ErrorPicker // the misclassified claims report.html lists
	instance     Instance     // the rows' execution, while they agree on one
	instances    int          // distinct executions seen (by run_instance)
	// Usage sums the rows' remote calls (summary.json's usage).
	Usage Usage
}

// Instance is the execution every row names (ok false when rows name
// several, as shards do, or none, as records of older versions).
func (s *Shards) Instance() (Instance, bool) {
	return s.instance, s.instances == 1 && s.instance.ID != ""
}

// Errors are the misclassified records report.html lists.
func (s *Shards) Errors() []Record {
	if s.errors == nil {
		return nil
	}
	return s.errors.Records()
}

// ShardError is a records file that cannot join the others: a row of
// another run, a claim already read, or a record metrics cannot use.
type ShardError struct {
	File string
	Row  int // 1-based
	Err  error
}

func (e *ShardError) Error() string { return fmt.Sprintf("%s row %d: %v", e.File, e.Row, e.Err) }
func (e *ShardError) Unwrap() error { return e.Err }

// Add merges one file's records. The rules for merging shards: every row
// comes from one run (one run id), no claim appears twice, and every record
// passes CheckRecord.
func (s *Shards) Add(file string, rs []Record, seen map[string]string) error {
	for i, r := range rs {
		if err := s.check(file, i, r, func(id string) (string, bool) {
			first, dup := seen[id]
			if !dup {
				seen[id] = file
			}
			return first, dup
		}); err != nil {
			return err
		}
		s.add(r)
	}
	return nil
}

// check applies Add's rules to row i (0-based) of file; dup records the
// claim id, or names the file that already holds it.
func (s *Shards) check(file string, i int, r Record, dup func(id string) (string, bool)) error {
	fail := func(format string, args ...any) error {
		return &ShardError{File: file, Row: i + 1, Err: fmt.Errorf(format, args...)}
	}
	if err := CheckRecord(r); err != nil {
		return &ShardError{File: file, Row: i + 1, Err: err}
	}
	if s.RunID == "" {
		s.RunID = r.RunID
	}
	if r.RunID != s.RunID {
		return fail("run %s, but earlier rows are run %s: shards must come from one run", r.RunID, s.RunID)
	}
	if first, dup := dup(r.ClaimID); dup {
		return fail("claim %s is also in %s: shards must not overlap", r.ClaimID, first)
	}
	if s.instances == 0 || r.RunInstance != s.instance.ID && s.instances == 1 {
		if s.instances == 0 {
			s.instance = InstanceOf(r.RunInstance, r.StartedAt)
		}
		s.instances++
	}
	return nil
}

// add keeps a checked record's outcome and temperature, and offers it to
// the error picker.
func (s *Shards) add(r Record) {
	s.Usage.Add(&r)
	s.Outcomes = append(s.Outcomes, OutcomeOf(r))
	s.Temperatures = append(s.Temperatures, r.Temperature)
	if s.errors == nil {
		s.errors = NewErrorPicker(ReportErrors)
	}
	s.errors.Add(r)
}

// ReadShards reads records files of one run and merges them by Add's
// rules. Each file is streamed (Scan), a batch of rows at a time and only
// the columns the metrics read, into compact outcomes (ReadOptions); the
// records report.html lists are read back whole at the end.
func ReadShards(files []string, o ReadOptions) (*Shards, error) {
	n := CountRecords(files)
	s := &Shards{errors: NewErrorPicker(ReportErrors), Outcomes: make([]metrics.Outcome, 0, n), Temperatures: make([]float64, 0, n)}
	err := s.Scan(files, o, func(at RecordAt, r Record, out metrics.Outcome) {
		s.Usage.Add(&r)
		s.Outcomes = append(s.Outcomes, out)
		s.Temperatures = append(s.Temperatures, r.Temperature)
		s.errors.addAt(r, at.File, at.Row)
	})
	if err != nil {
		return nil, err
	}
	if err := s.errors.readBack(files); err != nil {
		return nil, err
	}
	return s, nil
}

// RecordAt is where a record is: File indexes the files scanned, Row is
// 0-based.
type RecordAt struct {
	File int
	Row  int64
}

// Scan streams records files of one run (ScanRecords: the columns the
// metrics read) and checks every record by Add's rules; fn gets each
// record in part and its outcome, reduced as o says. The Shards keep the
// run id and execution, not the outcomes.
func (s *Shards) Scan(files []string, o ReadOptions, fn func(at RecordAt, r Record, out metrics.Outcome)) error {
	seen := newClaimSet(files, CountRecords(files))
	src := interner{}
	for fi, f := range files {
		err := ScanRecords(f, len(o.SliceBy) > 0, func(row int64, r Record) error {
			if err := s.check(f, int(row), r, func(id string) (string, bool) {
				return seen.add(id, fi, row)
			}); err != nil {
				return err
			}
			out := OutcomeOf(r)
			o.compact(&out, src)
			fn(RecordAt{File: fi, Row: row}, r, out)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// claimSet holds the claim ids read: a 64-bit hash of each (a million
// ids in 16 MiB, not the 70 MiB of the ids and a map of them), with the
// file it is in. A hash seen before is checked against the ids
// themselves, read again from the files: a duplicate claim is an error
// (one such read), and two ids of one hash (about one run in 10^7 at a
// million claims) cost a read and nothing else.
type claimSet struct {
	files []string
	seed  maphash.Seed
	ids   map[uint64]uint16
}

func newClaimSet(files []string, rows int) claimSet {
	if len(files) > 1<<16 {
		panic("reports: more than 65,536 records files")
	}
	return claimSet{files: files, seed: maphash.MakeSeed(), ids: make(map[uint64]uint16, rows)}
}

// add records id as in file fi at row (0-based), or returns the file that
// already holds it.
func (c claimSet) add(id string, fi int, row int64) (string, bool) {
	h := maphash.String(c.seed, id)
	if _, seen := c.ids[h]; !seen {
		c.ids[h] = uint16(fi)
		return "", false
	}
	// The files before fi, then fi's rows before this one.
	for f := 0; f <= fi; f++ {
		limit := int64(-1)
		if f == fi {
			limit = row
		}
		if found, err := holdsClaim(c.files[f], id, limit); err == nil && found {
			return c.files[f], true
		}
	}
	return "", false
}

// holdsClaim says whether the records file holds claim id among its
// first limit rows (all, for limit < 0), reading only claim_id.
func holdsClaim(path, id string, limit int64) (found bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			found, err = false, fmt.Errorf("read %s: damaged Parquet file (%v)", path, p)
		}
	}()
	f, pf, _, err := openParquet(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	ids := newBatchReader[struct {
		ClaimID string `parquet:"claim_id"`
	}](pf)
	defer ids.r.Close()
	var row int64
	for {
		n, rerr := ids.read()
		for i := range ids.buf[:n] {
			if limit >= 0 && row >= limit {
				return false, nil
			}
			if ids.buf[i].ClaimID == id {
				return true, nil
			}
			row++
		}
		if rerr != nil {
			return false, nil
		}
	}
}
