// Package reports owns what users and jobs read: the Parquet files
// (records, metrics, confusion, calibration, risk_coverage and sweeps), PNG
// plots, terminal tables, summary.json and manifest.json, the --fail-on
// gates, and the readers that let `audit report` recompute everything from
// records. All writes are atomic (AtomicFile: temporary name, rename).
//
// Compute derives every table from claim outcomes; audit run and audit
// report both call it, and both derive outcomes from records through
// OutcomeOf, so a report recomputed from records.parquet equals the run's.
// Formats: docs/format/records.md and docs/format/reports.md.
package reports
