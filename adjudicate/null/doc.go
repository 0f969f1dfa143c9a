// Package null is a benchmark tool, not a verifier: every pair gets the
// same constant logits, with no passage deciding it, whatever the claim
// and the evidence. It costs nothing per pair, so a run with
// `--verifier null` measures the pipeline's own ceiling — retrieval,
// batching, scheduling, deciding, writing, reports — against which a real
// backend's throughput can be judged. Its labels and metrics mean nothing
// and nobody should read them as verdicts; records name the verifier
// "null" so that such a run cannot be mistaken for one.
package null
