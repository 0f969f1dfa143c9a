package main

import "runtime/debug"

// stamped is the version the Makefile stamps into the binary it builds
// (-ldflags "-X main.stamped=$(git describe --tags --always --dirty)");
// empty in a plain go build or go run.
var stamped string

// version names the build that made an output folder: the stamped
// version, else what Go embedded (versionOf).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(stamped, bi, ok)
}

// versionOf is the stamp when there is one; else the module version Go
// recorded (a tagged module installed with go install), or, in a checkout,
// "(devel)" followed by the VCS revision Go embeds (its first 12 digits,
// "-dirty" when the tree had local changes) and the commit time; "unknown"
// without build info.
func versionOf(stamp string, bi *debug.BuildInfo, ok bool) string {
	if stamp != "" {
		return stamp
	}
	if !ok || bi == nil {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	if v != "(devel)" {
		return v // a module version names its commit (a pseudo-version) or tag
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v += " " + rev + dirty
	if at != "" {
		v += " (" + at + ")"
	}
	return v
}
