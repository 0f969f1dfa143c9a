package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

// heapProfileEnv names a file to which a debugging aid writes a heap
// profile (go tool pprof) each time the live heap reaches a new high by
// 10%, so the file ends up holding what was live at the run's peak. Not
// a flag: it is for profiling memory, not for users.
const heapProfileEnv = "AUDIT_HEAPPROFILE"

// startHeapProfile starts the sampler when AUDIT_HEAPPROFILE is set; the
// returned function stops it and writes a last profile if the heap grew
// past the last one written.
func startHeapProfile() func() {
	path := os.Getenv(heapProfileEnv)
	if path == "" {
		return func() {}
	}
	runtime.MemProfileRate = 64 << 10
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var high uint64
		write := func() {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc < high+high/10 {
				return
			}
			high = m.HeapAlloc
			f, err := os.Create(path)
			if err != nil {
				return
			}
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
		}
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				write()
			case <-stop:
				return
			}
		}
	}()
	return func() { close(stop); <-done }
}
