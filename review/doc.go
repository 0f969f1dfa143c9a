// Package review is human review of a run's claims: it draws a review
// queue with known inclusion probabilities (uniform, stratified, active),
// writes it for people (queue.jsonl, queue.csv and a self-contained
// review.html that saves a JSONL file of answers), reads and validates
// the answers (positioned errors), measures agreement between reviewers,
// and turns the answers and the run's records into estimates over all the
// claims. The statistics themselves are package estimate's; this package
// maps claims to them and owns the files (docs/review.md).
package review
