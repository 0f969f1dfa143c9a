// Reads every Parquet file of an `audit run` output folder with DuckDB and
// checks row counts, columns and a few sums against summary.json.
// Usage: node interop/check.mjs OUTDIR
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) { console.error('usage: node check.mjs OUTDIR'); process.exit(2); }
const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await (await con.run(sql)).getRowObjects());
const file = (f) => `'${join(dir, f).replaceAll("'", "''")}'`;
let failures = 0;
const check = (what, ok, detail) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ': ' + detail : ''}`); if (!ok) failures++; };

const expectCols = {
  'records.parquet': ['claim_id', 'source_id', 'text', 'claim_type', 'importance', 'gold_label', 'predicted_label', 'abstained',
    'abstain_reason', 'confidence', 'p_supported', 'p_unsupported', 'p_insufficient', 'raw_p_supported', 'raw_p_unsupported',
    'raw_p_insufficient', 'logit_supported', 'logit_unsupported', 'logit_insufficient', 'temperature', 'correct', 'tier1_fa',
    'tier2_fa', 'action', 'verdict', 'numeric_check', 'numeric_policy', 'evidence', 'evidence_used', 'meta', 'rationale', 'error', 'latency_ms',
    'verifier', 'run_id',
    'numeric_reason', 'numeric_fact_id', 'numeric_fact_value', 'numeric_fact_unit', 'numeric_fact_year', 'verifier_label', 'decided_by', 'flags', 'rule', 'rule_label', 'claim_index',
    'gold_evidence', 'gold_evidence_retrieved', 'gold_evidence_rank', 'run_instance', 'started_at', 'output_id',
    'verifier_confidence', 'verifier_correct', 'subject', 'predicate', 'object', 'qualifiers', 'timeframe', 'modality', 'polarity',
    'normalization', 'reviewer', 'decided_at', 'tokens_in', 'tokens_out', 'calls', 'retries', 'cost', 'claim_type_inferred', 'evidence_tags'],
  'metrics.parquet': ['run_id', 'metric', 'slice', 'stage', 'value', 'ci_low', 'ci_high', 'n', 'slice_key', 'slice_value',
    'run_instance', 'started_at'],
  'confusion.parquet': ['run_id', 'slice', 'gold_label', 'predicted_label', 'count', 'run_instance', 'started_at'],
  'calibration.parquet': ['run_id', 'stage', 'scheme', 'bin', 'lo', 'hi', 'count', 'mean_confidence', 'accuracy', 'run_instance', 'started_at'],
  'risk_coverage.parquet': ['run_id', 'stage', 'threshold', 'coverage', 'risk', 'run_instance', 'started_at'],
  'outputs.parquet': ['run_id', 'output_id', 'claims', 'supported', 'unsupported', 'insufficient', 'abstained', 'supported_fraction',
    'supported_fraction_lo', 'supported_fraction_hi',
    'any_unsupported', 'verdict', 'labelled', 'gold_supported', 'gold_unsupported', 'gold_insufficient', 'gold_supported_fraction',
    'gold_any_unsupported', 'gold_verdict', 'run_instance', 'started_at', 'query', 'query_id', 'attempt', 'overall_action',
    'overall_confidence', 'worst_claim_id', 'evidence_coverage', 'revision', 'revision_reason', 'instructions', 'abstention_message',
    'uncited_critical', 'risk_flags', 'improved', 'extraction_error', 'risk_severities', 'risk_level', 'no_evidence_response',
    'termination_warnings', 'unsupported_claims', 'query_decision', 'chosen_output_id', 'query_decision_reason'],
};
for (const [f, cols] of Object.entries(expectCols)) {
  const got = (await q(`DESCRIBE SELECT * FROM ${file(f)}`)).map((r) => r.column_name);
  check(`${f} columns`, JSON.stringify(got) === JSON.stringify(cols), got.join(','));
}
const n = Number((await q(`SELECT count(*) AS n FROM ${file('records.parquet')}`))[0].n);
// The claim's structured fields are typed columns: structs DuckDB reads by
// field, null where the claim gives none.
const types = Object.fromEntries((await q(`DESCRIBE SELECT qualifiers, timeframe, normalization FROM ${file('records.parquet')}`)).map((r) => [r.column_name, r.column_type]));
check('qualifiers is a struct with location', /^STRUCT\(.*"?location"? VARCHAR/.test(types.qualifiers), types.qualifiers);
check('normalization.entities is a list', /entities VARCHAR\[\]/.test(types.normalization), types.normalization);
const subj = await q(`SELECT count(subject) AS s, count(*) FILTER (WHERE len(normalization.entities) > 0) AS e,
  count(*) FILTER (WHERE reviewer = 'auto') AS a, count(cost) AS c FROM ${file('records.parquet')}`);
check('subject and normalization.entities read back', Number(subj[0].s) > 0 && Number(subj[0].e) > 0, `${subj[0].s} subjects, ${subj[0].e} with entities`);
check('reviewer auto on every row; no cost for a local verifier', Number(subj[0].a) === n && Number(subj[0].c) === 0, `${subj[0].a} auto, ${subj[0].c} costs`);
check('records rows = claims', n === summary.claims, `${n} vs ${summary.claims}`);
const conf = await q(`SELECT sum(count) AS s FROM ${file('confusion.parquet')} WHERE slice = 'all'`);
const answeredLabelled = Object.values(summary.confusion).reduce((a, row) => a + Object.values(row).reduce((x, y) => x + y, 0), 0);
check('confusion sum = answered labelled', Number(conf[0].s) === answeredLabelled, `${conf[0].s} vs ${answeredLabelled}`);
const fa = await q(`SELECT avg(CASE WHEN tier1_fa THEN 1 ELSE 0 END) AS r FROM ${file('records.parquet')} WHERE NOT abstained AND gold_label IS NOT NULL`);
check('tier-1 FA from records = summary', Math.abs(Number(fa[0].r) - summary.metrics.tier1_fa_conditional) < 1e-9,
  `${fa[0].r} vs ${summary.metrics.tier1_fa_conditional}`);
// ECE from the records: the verifier's own confidence and correctness over
// the answered labelled rows, ten equal-width bins (not `confidence`, the
// final label's probability).
const ece = await q(`SELECT sum(k * abs(acc - conf)) / sum(k) AS e FROM (
  SELECT least(floor(verifier_confidence * 10), 9) AS b, count(*) AS k, avg(verifier_confidence) AS conf,
         avg(CASE WHEN verifier_correct THEN 1 ELSE 0 END) AS acc
  FROM ${file('records.parquet')} WHERE NOT abstained AND verifier_correct IS NOT NULL GROUP BY b)`);
check('ECE from verifier_confidence = summary', Math.abs(Number(ece[0].e) - summary.metrics.ece_10) < 1e-9,
  `${ece[0].e} vs ${summary.metrics.ece_10}`);
const acc = await q(`SELECT value FROM ${file('metrics.parquet')} WHERE metric = 'accuracy' AND slice = 'all' AND stage = 'calibrated'`);
check('metrics.parquet accuracy = summary', Math.abs(Number(acc[0].value) - summary.metrics.accuracy) < 1e-12);
const ev = await q(`SELECT count(*) AS k FROM (SELECT unnest(evidence) AS e FROM ${file('records.parquet')}) WHERE e.doc_id IS NOT NULL`);
check('evidence unnests as a list of structs', Number(ev[0].k) > 0, `${ev[0].k} passages`);
const bins = await q(`SELECT sum(count) AS s FROM ${file('calibration.parquet')} WHERE stage = 'calibrated' AND scheme = 'equal_width_10'`);
check('calibration bins hold every answered labelled claim', Number(bins[0].s) === answeredLabelled);
// outputs.parquet: one row per source_id, recomputed from records.parquet.
const outs = await q(`SELECT count(*) AS n, sum(claims) AS c, avg(supported_fraction) AS f, avg(CASE WHEN any_unsupported THEN 1 ELSE 0 END) AS u
  FROM ${file('outputs.parquet')}`);
const fromRecords = await q(`SELECT count(*) AS n, sum(k) AS c, avg(s / k) AS f, avg(CASE WHEN u > 0 THEN 1 ELSE 0 END) AS u FROM (
  SELECT source_id, count(*) AS k, count(*) FILTER (WHERE predicted_label = 'supported') AS s,
         count(*) FILTER (WHERE predicted_label = 'unsupported') AS u
  FROM ${file('records.parquet')} WHERE source_id <> '' GROUP BY source_id)`);
check('outputs.parquet: one row per source_id', Number(outs[0].n) === Number(fromRecords[0].n) && Number(outs[0].n) > 0, `${outs[0].n} vs ${fromRecords[0].n}`);
check('outputs.parquet: claims sum', Number(outs[0].c) === Number(fromRecords[0].c), `${outs[0].c} vs ${fromRecords[0].c}`);
check('outputs.parquet: supported fraction = records', Math.abs(Number(outs[0].f) - Number(fromRecords[0].f)) < 1e-12, `${outs[0].f} vs ${fromRecords[0].f}`);
check('output_supported_fraction = summary', Math.abs(Number(outs[0].f) - summary.metrics.output_supported_fraction) < 1e-12,
  `${outs[0].f} vs ${summary.metrics.output_supported_fraction}`);
check('output_any_unsupported_rate = records', Math.abs(Number(fromRecords[0].u) - summary.metrics.output_any_unsupported_rate) < 1e-12,
  `${fromRecords[0].u} vs ${summary.metrics.output_any_unsupported_rate}`);
// Misclassified claims with the passage that decided them, from
// records.parquet alone: evidence_used.rank indexes the evidence list
// (1-based, as DuckDB's lists are).
const wrong = await q(`
  SELECT claim_id, gold_label, predicted_label, round(confidence, 3) AS confidence,
         evidence_used.passage_id AS passage,
         evidence[evidence_used.rank].passage_id AS passage_at_rank,
         evidence[evidence_used.rank].snippet AS deciding_snippet
  FROM ${file('records.parquet')}
  WHERE correct = false
  ORDER BY confidence DESC, claim_id
  LIMIT 5`);
console.log('most confident misclassified claims, with the snippet that decided them:');
for (const r of wrong) {
  const s = String(r.deciding_snippet);
  console.log(`  ${r.claim_id}  gold ${r.gold_label}, predicted ${r.predicted_label} at ${r.confidence}: "${s.length > 90 ? s.slice(0, 90) + "…" : s}"`);
}
const wrongN = Number((await q(`SELECT count(*) AS n FROM ${file('records.parquet')} WHERE correct = false`))[0].n);
check('misclassified claims listed with their deciding snippet', wrong.length === Math.min(5, wrongN) && wrong.length > 0 &&
  wrong.every((r) => r.passage === r.passage_at_rank && String(r.deciding_snippet).length > 0), `${wrong.length} rows`);
const bound = await q(`SELECT max(length(e.snippet)) AS m FROM (SELECT unnest(evidence) AS e FROM ${file('records.parquet')})`);
check('snippets are bounded (300 code points and an ellipsis)', Number(bound[0].m) <= 301, `longest ${bound[0].m}`);
console.log(failures === 0 ? 'DuckDB read every file' : `${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
