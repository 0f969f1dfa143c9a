package main

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
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
