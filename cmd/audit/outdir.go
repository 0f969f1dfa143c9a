package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/claimaudit/claimaudit/outdir"
)

// openOut takes an output folder for a writing command (run, report,
// calibrate): a folder held by another command, holding files audit did not
// write (without --force) or unreadable is an input error.
func openOut(dir string, force bool, internal ...string) (*outdir.Folder, error) {
	var sweep []string
	for _, n := range internal {
		if strings.HasSuffix(n, ".building-*") {
			sweep = append(sweep, n) // we hold the folder: no build is running there
		}
	}
	f, err := outdir.Open(dir, outdir.Options{Force: force, Internal: internal, Sweep: sweep})
	if err != nil {
		return nil, &exitError{code: exitInput, err: err}
	}
	return f, nil
}

// checkReadable refuses to read from a folder that a command was writing
// when it was killed (its files may be of two runs).
func checkReadable(dir string) error {
	if err := outdir.Check(dir); err != nil {
		return &exitError{code: exitInput, err: err}
	}
	return nil
}

// runInternal are the names in a run's --out that belong to the tool outside
// any one run: the verdict cache and, when it lies inside --out, the index
// (and the temporary folders its builds use). An index folder that is --out
// itself, or holds it, is refused: the run's files would be the index's.
func runInternal(out, index string) ([]string, error) {
	internal := []string{".cache"}
	if index == "" {
		return append(internal, "index", "index.building-*"), nil
	}
	ao, err1 := filepath.Abs(out)
	ai, err2 := filepath.Abs(index)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(ao, ai)
	if err != nil {
		return internal, nil
	}
	switch {
	case rel == ".":
		return nil, usageErrorf("--index %s is the --out folder: give the index its own folder", index)
	case rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		if back, err := filepath.Rel(ai, ao); err == nil && !strings.HasPrefix(back, "..") {
			return nil, usageErrorf("--out %s is inside --index %s: give the run its own folder", out, index)
		}
		return internal, nil
	}
	top := strings.Split(rel, string(filepath.Separator))[0]
	return append(internal, top, top+".building-*"), nil
}

// calibrateFiles are what `audit calibrate` writes; a calibrate into a run's
// folder replaces these and keeps the run's other files.
var calibrateFiles = map[string]bool{"calibration_fit.json": true, "temperature_sweep.parquet": true,
	"temperature_sweep.png": true, "threshold_sweep.parquet": true, "threshold_sweep.png": true}

func describeRun(m *outdir.Marker) string {
	return fmt.Sprintf("the files of '%s' (run %s)", m.MadeBy, m.RunID)
}
