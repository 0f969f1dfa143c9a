// Package memo keeps values computed from keys, at most a fixed number of
// them: a run reads the same passages for many claims, and their analysis
// is worth keeping while memory stays bounded.
//
// Eviction is the clock (second-chance) algorithm: an entry read since the
// hand last passed it stays for another turn. Unlike two generations of
// half the capacity each, every slot holds a distinct key, so a run whose
// passages fit computes each once.
package memo
