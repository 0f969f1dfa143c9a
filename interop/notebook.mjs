// Runs every ```sql block of docs/notebook.md with DuckDB over the records
// files a glob names (RUNS in the SQL; METRICS: the metrics.parquet beside
// each), printing each result; exits 1 when a query fails or returns no rows.
// Usage: node interop/notebook.mjs docs/notebook.md 'runs/*/records.parquet'
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [page, runs] = process.argv.slice(2);
if (!page || !runs) { console.error('usage: node notebook.mjs NOTEBOOK.md GLOB'); process.exit(2); }
const blocks = [...readFileSync(page, 'utf8').matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let failures = 0;
for (const sql of blocks) {
  const metrics = runs.replace(/records\.parquet$/, 'metrics.parquet');
  const q = sql.replaceAll("'RUNS'", `'${runs.replaceAll("'", "''")}'`).replaceAll("'METRICS'", `'${metrics.replaceAll("'", "''")}'`);
  try {
    const rows = await (await con.run(q)).getRowObjectsJson();
    console.log(`-- ${q.trim().split('\n')[0]} … (${rows.length} rows)`);
    console.table(rows);
    if (rows.length === 0) { console.log('FAIL no rows'); failures++; }
  } catch (e) {
    console.log(`FAIL ${e.message}\n${q}`);
    failures++;
  }
}
console.log(`${blocks.length} queries, ${failures} failed`);
process.exit(failures ? 1 : 0);
