package main

import (
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file to which a debugging aid writes a CPU
// profile (go tool pprof) of the whole command. Not a flag: it is for
// profiling, not for users.
const cpuProfileEnv = "AUDIT_CPUPROFILE"

// startCPUProfile starts the profiler when AUDIT_CPUPROFILE is set; the
// returned function stops it and closes the file.
func startCPUProfile() func() {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
