// Checks retrieval_recall_at_5 and retrieval_mrr of a run against DuckDB,
// computed from records.parquet's evidence lists and a gold file whose
// lines carry `evidence` (span or document ids): recall@5 = mean over
// claims with gold evidence of the share of their ids named (as span_id or
// doc_id) by one of the first five retrieved passages.
// Usage: node interop/recall.mjs OUTDIR GOLD_JSONL
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';

const [dir, gold] = process.argv.slice(2);
if (!gold) { console.error('usage: node recall.mjs OUTDIR GOLD_JSONL'); process.exit(2); }
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const lit = (f) => `'${f.replaceAll("'", "''")}'`;
const q = async (sql) => (await (await con.run(sql)).getRowObjects());
const [r] = await q(`
  WITH g AS (SELECT claim_id, unnest(evidence) AS id FROM read_json_auto(${lit(gold)}) WHERE len(evidence) > 0),
  p AS (SELECT claim_id, generate_subscripts(evidence, 1) AS rank, unnest(evidence) AS e FROM ${lit(join(dir, 'records.parquet'))}),
  hit AS (SELECT g.claim_id, g.id, min(p.rank) AS rank FROM g LEFT JOIN p ON p.claim_id = g.claim_id AND (p.e.doc_id = g.id OR p.e.span_id = g.id)
          GROUP BY g.claim_id, g.id),
  per AS (SELECT claim_id, avg(CASE WHEN rank <= 5 THEN 1.0 ELSE 0.0 END) AS r5, max(CASE WHEN rank IS NULL THEN 0.0 ELSE 1.0 / rank END) AS rr
          FROM hit GROUP BY claim_id)
  SELECT count(*) AS n, avg(r5) AS recall5, avg(rr) AS mrr FROM per`);
const m = await q(`SELECT metric, value FROM ${lit(join(dir, 'metrics.parquet'))}
  WHERE slice = 'all' AND stage = 'calibrated' AND metric IN ('retrieval_claims', 'retrieval_recall_at_5', 'retrieval_mrr')`);
const v = Object.fromEntries(m.map((x) => [x.metric, Number(x.value)]));
let failures = 0;
const check = (what, duck, ours, tol) => {
  const ok = Math.abs(Number(duck) - ours) <= tol;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: DuckDB ${duck}, metrics.parquet ${ours}`);
  if (!ok) failures++;
};
check('claims with gold evidence', r.n, v.retrieval_claims, 0);
check('recall@5', r.recall5, v.retrieval_recall_at_5, 1e-12);
check('MRR', r.mrr, v.retrieval_mrr, 1e-12);
process.exit(failures === 0 ? 0 : 1);
