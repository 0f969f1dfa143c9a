package audit

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// minHeapHeadroom is the least room heapLimit leaves above what a stage
// holds at its start.
const minHeapHeadroom = 192 << 20

// heapLimit puts a soft memory limit (debug.SetMemoryLimit) on a stage
// that holds a value per claim and makes large short-lived arrays (the
// reports: every slice's metrics sort and bin its claims): what the Go
// runtime holds at the stage's start plus as much again as the live heap,
// and at least minHeapHeadroom more. Left to its default pacing the
// collector lets the heap reach twice its high-water mark, and the pages
// one slice's arrays freed stay mapped while the next slice's are made, so
// a run of a million claims peaked at 3.5 times the memory it held. Under
// the limit the collector runs when the limit nears and returns freed
// pages, so the stage's memory stays near what it holds. The limit is
// soft: a stage that needs more gets it, at the cost of collecting more
// often. A GOMEMLIMIT the user set is left alone. The returned function
// puts the previous limit back. The limit is the process's: two runs in
// one process at the same time would put each other's back out of order
// (the command line runs one).
func heapLimit() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return func() {} // a runtime without these metrics: leave the default
		}
	}
	live := s[0].Value.Uint64()
	held := s[1].Value.Uint64() - s[2].Value.Uint64() - s[3].Value.Uint64()
	limit := held + max(live, minHeapHeadroom)
	old := debug.SetMemoryLimit(int64(min(limit, 1<<62)))
	return func() { debug.SetMemoryLimit(old) }
}

// HeapLimit is heapLimit for a command that computes the reports from
// outcomes it read (audit report): the returned function puts the
// previous limit back.
func HeapLimit() (restore func()) { return heapLimit() }

// HeapLimitFor is heapLimit for a stage that will keep about keep bytes
// more than the runtime holds now (reading records into outcomes: a
// known number of rows) or nothing more (keep 0: comparing two runs
// already read), with minHeapHeadroom for what it makes and drops: the
// collector runs as the limit nears rather than when the heap doubles, so
// the stage's memory stays near what it keeps. Soft, like heapLimit; a
// GOMEMLIMIT the user set is left alone. The returned function puts the
// previous limit back.
func HeapLimitFor(keep uint64) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	for _, x := range s {
		if x.Value.Kind() != metrics.KindUint64 {
			return func() {}
		}
	}
	held := s[0].Value.Uint64() - s[1].Value.Uint64() - s[2].Value.Uint64()
	old := debug.SetMemoryLimit(int64(min(held+keep+minHeapHeadroom, 1<<62)))
	return func() { debug.SetMemoryLimit(old) }
}

// RecordBytes is what HeapLimitFor allows a record read into an outcome
// for the reports or a shard merge (the outcome, its temperature and the
// fields kept beside it), with room to spare; RunRowBytes a row of a run
// read for a comparison (reports.LoadRun: about 170 bytes with its claim
// id), two runs of which are held at once.
const (
	RecordBytes = 256
	RunRowBytes = 176
)
