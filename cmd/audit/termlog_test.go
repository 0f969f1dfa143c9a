package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTermHandlerWritesReadableLines(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(newTermHandler(&buf, slog.LevelInfo, false))
	log.Info("built index", "dir", "out/index", "passages", 1204, "why", "no index")
	log.With("stage", "verify").Warn("slow backend")
	log.Debug("hidden")
	assert.Equal(t, "  built index (dir=out/index, passages=1204, why=\"no index\")\nwarning: slow backend (stage=verify)\n", buf.String())
	assert.NotContains(t, buf.String(), "level=")
}

// On a terminal a long line wraps at a space before the last column,
// continuation lines indented; floats are rounded.
func TestTermHandlerWrapsAndRounds(t *testing.T) {
	var buf bytes.Buffer
	h := newTermHandler(&buf, slog.LevelInfo, false)
	h.width = func() int { return 40 }
	log := slog.New(h)
	log.Warn("no temperature fitted: no labelled claims with logits; probabilities are the verifier's own")
	log.Info("temperature fitted", "full", 0.5157244771685017, "seconds", 3.1797e-05)
	assert.Equal(t, "warning: no temperature fitted: no\n"+
		"    labelled claims with logits;\n"+
		"    probabilities are the verifier's\n"+
		"    own\n"+
		"  temperature fitted (full=0.5157,\n"+
		"    seconds=3.18e-05)\n", buf.String())
	for _, l := range strings.Split(buf.String(), "\n") {
		assert.LessOrEqual(t, len([]rune(l)), 39)
	}
}

// The text and JSON logs round floats too.
func TestLogsRoundFloats(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		e := &env{stderr: &buf}
		require.NoError(t, e.setupLog("info", format, true))
		e.log.Info("temperature fitted", "full", 0.5157244771685017, "n", 600)
		assert.Contains(t, buf.String(), "0.5157", format)
		assert.NotContains(t, buf.String(), "0.51572", format)
	}
}
