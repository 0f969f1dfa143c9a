// Checks `audit diff --json A B` against DuckDB: fixed, broken and unchanged
// counts from a join of the two records files on claim_id (gold labels are
// B's; right = answered with the gold label, the records' `correct`).
// Usage: node interop/paired.mjs A_RECORDS B_RECORDS DIFF_JSON
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [a, b, diffPath] = process.argv.slice(2);
if (!diffPath) { console.error('usage: node paired.mjs A_RECORDS B_RECORDS DIFF_JSON'); process.exit(2); }
const diff = JSON.parse(readFileSync(diffPath, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const lit = (f) => `'${f.replaceAll("'", "''")}'`;
const rows = await (await con.run(`
  SELECT count(*) AS shared,
         count(*) FILTER (WHERE b.gold_label IS NOT NULL) AS labelled,
         count(*) FILTER (WHERE b.gold_label IS NOT NULL AND NOT coalesce(a.predicted_label = b.gold_label, false) AND coalesce(b.correct, false)) AS fixed,
         count(*) FILTER (WHERE b.gold_label IS NOT NULL AND coalesce(a.predicted_label = b.gold_label, false) AND NOT coalesce(b.correct, false)) AS broken,
         count(*) FILTER (WHERE b.gold_label IS NOT NULL AND coalesce(a.predicted_label = b.gold_label, false) AND coalesce(b.correct, false)) AS unchanged_correct,
         count(*) FILTER (WHERE b.gold_label IS NOT NULL AND NOT coalesce(a.predicted_label = b.gold_label, false) AND NOT coalesce(b.correct, false)) AS unchanged_wrong
  FROM ${lit(a)} a JOIN ${lit(b)} b USING (claim_id)`)).getRowObjects();
const got = diff.counts.find((r) => r.slice === 'all');
let failures = 0;
for (const k of ['shared', 'labelled', 'fixed', 'broken', 'unchanged_correct', 'unchanged_wrong']) {
  const ok = Number(rows[0][k]) === got[k];
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${k}: DuckDB ${rows[0][k]}, audit diff ${got[k]}`);
  if (!ok) failures++;
}
process.exit(failures === 0 ? 0 : 1);
