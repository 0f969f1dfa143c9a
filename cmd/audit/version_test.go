package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	devel := debug.Module{Path: "github.com/claimaudit/claimaudit", Version: "(devel)"}
	tests := []struct {
		name  string
		stamp string
		bi    *debug.BuildInfo
		ok    bool
		want  string
	}{
		{"the Makefile's stamp wins", "v1.2.0-3-g9f64c9b-dirty",
			&debug.BuildInfo{Main: devel, Settings: vcs("vcs.revision", "0123456789abcdef0123")}, true, "v1.2.0-3-g9f64c9b-dirty"},
		{"a module version (go install …@v1.2.0, or a pseudo-version)", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127221800-9f64c9b01234+dirty"}}, true, "v0.0.0-20261127221800-9f64c9b01234+dirty"},
		{"a checkout: the revision Go embedded, and its time", "",
			&debug.BuildInfo{Main: devel, Settings: vcs("vcs", "git", "vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-11-27T22:18:00Z", "vcs.modified", "false")},
			true, "(devel) 0123456789ab (2026-11-27T22:18:00Z)"},
		{"a checkout with local changes", "",
			&debug.BuildInfo{Main: devel, Settings: vcs("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true")}, true, "(devel) 0123456789ab-dirty"},
		{"no VCS information (-buildvcs=false)", "", &debug.BuildInfo{Main: devel}, true, "(devel)"},
		{"no build information", "", nil, false, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, versionOf(tt.stamp, tt.bi, tt.ok))
		})
	}
}

// TestStampedVersion: the version the Makefile stamps is what --version
// prints and what a run's manifest.json names.
func TestStampedVersion(t *testing.T) {
	defer func(s string) { stamped = s }(stamped)
	stamped = "v9.8.7-6-gabcdef0-dirty"

	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run(context.Background(), []string{"--version"}, strings.NewReader(""), &out, &errOut), errOut.String())
	assert.Equal(t, "audit version v9.8.7-6-gabcdef0-dirty\n", out.String())

	small := "../../corpus/testdata/small/"
	dir := filepath.Join(t.TempDir(), "out")
	out.Reset()
	errOut.Reset()
	args := []string{"run", "--log-level", "warn", "--corpus", small + "corpus.jsonl", "--spans", small + "spans.jsonl",
		"--claims", "../../extract/testdata/extract/claims.golden.jsonl", "--out", dir}
	require.Equal(t, exitOK, run(context.Background(), args, strings.NewReader(""), &out, &errOut), errOut.String())
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var m struct {
		ToolVersion string `json:"tool_version"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "v9.8.7-6-gabcdef0-dirty", m.ToolVersion)
}
