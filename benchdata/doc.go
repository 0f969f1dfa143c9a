// Package benchdata owns the deterministic generator of labelled benchmark
// data (corpus, spans, claims, gold labels and model outputs at any scale)
// and the small demo set committed under benchdata/demo.
//
// The demo corpus in benchdata/demo is hand-written for now; the benchdata
// issue replaces it with a generated, labelled set.
package benchdata
