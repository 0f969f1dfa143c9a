// Package audit owns the pipeline that turns claims into records: retrieval
// of the top-k passages per claim, batched verification, the abstain policy,
// seed 004's action, seed 002's verdict, seed 001's numeric check, verdict
// caching and resume. Every input claim yields exactly one record; a claim
// that could not be adjudicated is a record that says why.
//
// Not yet implemented: see the adjudication issue.
package audit
