package reports

import (
	"fmt"

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
		if first, dup := seen[r.ClaimID]; dup {
			return fail("claim %s is also in %s: shards must not overlap", r.ClaimID, first)
		}
		seen[r.ClaimID] = file
		if s.instances == 0 || r.RunInstance != s.instance.ID && s.instances == 1 {
			if s.instances == 0 {
				s.instance = InstanceOf(r.RunInstance, r.StartedAt)
			}
			s.instances++
		}
		s.Usage.Add(&r)
		s.Outcomes = append(s.Outcomes, OutcomeOf(r))
		s.Temperatures = append(s.Temperatures, r.Temperature)
		if s.errors == nil {
			s.errors = NewErrorPicker(ReportErrors)
		}
		s.errors.Add(r)
	}
	return nil
}

// ReadShards reads records files of one run and merges them by Add's rules.
func ReadShards(files []string) (*Shards, error) {
	s := &Shards{}
	seen := map[string]string{}
	for _, f := range files {
		rs, err := ReadParquet[Record](f)
		if err != nil {
			return nil, err
		}
		if err := s.Add(f, rs, seen); err != nil {
			return nil, err
		}
	}
	return s, nil
}
