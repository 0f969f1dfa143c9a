package reports

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/claimaudit/claimaudit/userfile"
)

// ManifestVersion numbers manifest.json's layout. 2: typed settings with
// the index's passage settings, and one timing per stage (validate and index
// apart) instead of version 1's validate_and_index.
const ManifestVersion = 2

// Manifest is manifest.json: the audit trail of a run (inputs and their
// hashes, settings, verifier, counts, per-stage timings).
type Manifest struct {
	RunID           string        `json:"run_id"`
	RunInstance     string        `json:"run_instance,omitempty"` // this execution (Instance)
	StartedAt       string        `json:"started_at,omitempty"`
	ToolVersion     string        `json:"tool_version"`
	SchemaVersion   string        `json:"schema_version"`
	ManifestVersion int           `json:"manifest_version"`
	WrittenAt       string        `json:"written_at"`
	MadeBy          string        `json:"made_by"` // "audit run" or "audit report"
	Inputs          []InputFile   `json:"inputs,omitempty"`
	Records         []string      `json:"records,omitempty"` // audit report: the records files read
	Settings        *RunSettings  `json:"settings,omitempty"`
	Verifier        *VerifierInfo `json:"verifier,omitempty"`
	Counts          ManifestCount `json:"counts"`
	Timings         *Timings      `json:"timings_seconds,omitempty"`
	// Shard says which shard of its run this folder holds (audit run
	// --shard); absent for a whole run.
	Shard *ShardInfo `json:"shard,omitempty"`
}

// ShardInfo names one shard of a run split Count ways (0 ≤ Index < Count).
// Its records are decided at T = 1: `audit report` over every shard
// calibrates their union.
type ShardInfo struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ReadManifest reads the manifest.json in dir.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, "manifest.json")
	b, err := userfile.ReadFile(path, userfile.MaxLarge)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// WriteManifest writes m as dir/manifest.json, stamped with meta and the
// schema versions.
func WriteManifest(dir string, meta Meta, m Manifest) error {
	m.RunID, m.ToolVersion, m.SchemaVersion, m.ManifestVersion = meta.RunID, meta.ToolVersion, SchemaVersion, ManifestVersion
	m.WrittenAt = time.Now().UTC().Format(time.RFC3339)
	if meta.Instance.ID != "" {
		m.RunInstance, m.StartedAt = meta.Instance.ID, meta.Instance.Stamp()
	}
	return writeJSON(filepath.Join(dir, "manifest.json"), m)
}

// InputFile is one input of a run.
type InputFile struct {
	Role   string `json:"role"` // corpus, spans, claims, gold
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// RunSettings are the settings a run's records depend on.
type RunSettings struct {
	K                 int     `json:"k"`
	BatchSize         int     `json:"batch_size"`
	Workers           int     `json:"workers"`
	AbstainBelow      float64 `json:"abstain_below"`
	MinRetrievalScore float64 `json:"min_retrieval_score"`
	Calibrate         string  `json:"calibrate"`
	Temperature       float64 `json:"temperature"`
	ECEThreshold      float64 `json:"ece_threshold"`
	Seed              uint64  `json:"seed"`
	Folds             int     `json:"folds"`
	MinCalibration    int     `json:"min_calibration"`
	TemperatureFrom   string  `json:"temperature_from,omitempty"`
	Resume            bool    `json:"resume"`
	Index             string  `json:"index"`
	NumericPolicy     string  `json:"numeric_policy,omitempty"`
	NumericEffect     string  `json:"numeric_effect,omitempty"`
	// WeakRetrieval is --weak-retrieval ("" for the default, abstain);
	// VerifyTimeout --verify-timeout ("" for none); AllowDegenerateVerifier
	// --allow-degenerate-verifier.
	WeakRetrieval           string `json:"weak_retrieval,omitempty"`
	VerifyTimeout           string `json:"verify_timeout,omitempty"`
	AllowDegenerateVerifier bool   `json:"allow_degenerate_verifier,omitempty"`
	// The labelling rules (docs/rules.md): those applied (empty: none),
	// their effect, the no-evidence mode, the authority KEY=VALUE and the
	// stale threshold.
	Rules          []string `json:"rules,omitempty"`
	RuleEffect     string   `json:"rule_effect,omitempty"`
	NoEvidence     string   `json:"no_evidence,omitempty"`
	Authority      string   `json:"authority,omitempty"`
	MaxEvidenceAge string   `json:"max_evidence_age,omitempty"`
	// AsOf is the date undated claims were aged against (the stale rule):
	// --as-of, or the run's date.
	AsOf string `json:"as_of,omitempty"`
	// Passages are the index's passage settings (window sentences, stride,
	// longest window), read from the index's own manifest.
	Passages any `json:"passages"`
}

// VerifierInfo names the verifier and its version (model, weights).
type VerifierInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ManifestCount are a run's counts.
type ManifestCount struct {
	Claims    int `json:"claims"`
	Abstained int `json:"abstained"`
	Errors    int `json:"errors"`
}

// Timings are a run's stage durations, written in seconds.
type Timings struct {
	Validate          Seconds `json:"validate"`
	Index             Seconds `json:"index"`
	RetrieveAndVerify Seconds `json:"retrieve_and_verify"`
	// VerifyBusy is the time the verifier spent in Verify, summed over
	// workers: within RetrieveAndVerify, not beside it.
	VerifyBusy     Seconds `json:"verify_busy"`
	Calibrate      Seconds `json:"calibrate"`
	DecideAndWrite Seconds `json:"decide_and_write"`
	Reports        Seconds `json:"reports"`
}

// Total is the wall time of the stages (VerifyBusy overlaps them).
func (t Timings) Total() time.Duration {
	return time.Duration(t.Validate + t.Index + t.RetrieveAndVerify + t.Calibrate + t.DecideAndWrite + t.Reports)
}

// Seconds is a duration that marshals as seconds.
type Seconds time.Duration

// MarshalJSON writes the duration in seconds.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(s).Seconds(), 'g', -1, 64), nil
}

// UnmarshalJSON reads seconds.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("seconds: %w", err)
	}
	*s = Seconds(v * float64(time.Second))
	return nil
}
