#!/usr/bin/env bash
# same.sh: do two audit binaries give the same records and tables?
#
# usage: same.sh OLD_BIN NEW_BIN DIR SET...
#   each SET is a folder holding corpus.jsonl, spans.jsonl, claims.jsonl and
#   gold.jsonl (or gold_labels.jsonl): both binaries run `audit run` with the
#   defaults into DIR/<name>-old and DIR/<name>-new, and every row of
#   records, confusion, calibration, risk_coverage and metrics is compared
#   (exported as JSON lines), leaving out what differs by design between two
#   executions: latency (latency_ms, the latency metrics), run_instance and
#   started_at, decided_at; and the columns of schema version 6 (the claim's
#   own fields, reviewer, evidence_tags), which an older binary does not write. Bootstrap interval endpoints are compared too: a change that
#   moves them says so here.
# Exits 1 naming the first set and table that differ.
set -euo pipefail
old=$1 new=$2 dir=$3
shift 3
mkdir -p "$dir"
strip='del(.latency_ms, .run_instance, .started_at, .subject, .predicate, .object, .qualifiers, .timeframe, .modality, .polarity, .normalization, .reviewer, .decided_at, .evidence_tags) | select((.metric // "") | test("latency") | not)'
status=0
for set in "$@"; do
	name=$(basename "$set")
	gold=$set/gold.jsonl
	[ -f "$gold" ] || gold=$set/gold_labels.jsonl
	for side in old new; do
		bin=$old
		[ $side = new ] && bin=$new
		rm -rf "$dir/$name-$side"
		"$bin" run --log-level warn --corpus "$set/corpus.jsonl" --spans "$set/spans.jsonl" --claims "$set/claims.jsonl" \
			--gold "$gold" --out "$dir/$name-$side" >/dev/null
	done
	for t in records confusion calibration risk_coverage metrics; do
		for side in old new; do
			"$new" export "$dir/$name-$side" --table $t --format jsonl | jq -c "$strip" >"$dir/$name-$side.$t.jsonl"
		done
		if cmp -s "$dir/$name-old.$t.jsonl" "$dir/$name-new.$t.jsonl"; then
			echo "same: $name $t ($(wc -l <"$dir/$name-new.$t.jsonl") rows)"
		else
			echo "DIFFERENT: $name $t (diff $dir/$name-old.$t.jsonl $dir/$name-new.$t.jsonl)"
			status=1
		fi
	done
done
exit $status
