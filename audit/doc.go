// Package audit owns the pipeline that turns claims into records, as
// named stages run in order by Run: validate the claims and gold, ensure
// the passage index (reusing its settings), retrieve the top-k passages per
// claim and verify them in batches (each claim travels with its pair
// through the scheduler into an on-disk spool), calibrate, decide each
// claim (the abstain policy, seed 004's action, seed 002's verdict, seed
// 001's numeric check) and write records.parquet, then compute and write
// the reports. Verdict caching makes a killed run resumable. Every input
// claim yields exactly one record; a claim that could not be adjudicated is
// a record that says why.
package audit
