// Package reports owns what users and jobs read: the Parquet files
// (records, metrics, confusion, calibration, risk_coverage and sweeps), PNG
// plots, terminal tables, summary.json and manifest.json, the --fail-on
// gates, and the readers that let `audit report` recompute everything from
// records. All writes are atomic.
//
// Not yet implemented: see the reports issue.
package reports
