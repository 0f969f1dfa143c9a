package reports

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Instance identifies one execution of a run. The run id is a hash of the
// configuration (inputs, settings, verifier), so two nightly runs on the
// same inputs share it; the instance id is drawn at random when the run
// starts, so each execution has its own, and StartedAt orders them. They
// are the only values that differ between two runs of one configuration.
type Instance struct {
	ID        string
	StartedAt time.Time
}

// NewInstance draws a fresh instance id (16 hex digits) started at now
// (UTC, to the millisecond).
func NewInstance(now time.Time) Instance {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return Instance{ID: hex.EncodeToString(b[:]), StartedAt: now.UTC().Truncate(time.Millisecond)}
}

// Millis is StartedAt as Unix milliseconds (Parquet's timestamp column); 0
// for the zero instance.
func (i Instance) Millis() int64 {
	if i.StartedAt.IsZero() {
		return 0
	}
	return i.StartedAt.UnixMilli()
}

// Stamp is StartedAt in RFC 3339 with milliseconds, UTC ("" when zero).
func (i Instance) Stamp() string {
	if i.StartedAt.IsZero() {
		return ""
	}
	return i.StartedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// InstanceOf reads an instance back from its columns.
func InstanceOf(id string, millis int64) Instance {
	if id == "" {
		return Instance{}
	}
	return Instance{ID: id, StartedAt: time.UnixMilli(millis).UTC()}
}
