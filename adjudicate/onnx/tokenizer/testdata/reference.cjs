// Writes the Hugging Face tokenizers library's encodings (npm package
// tokenizers, the Rust library) of a corpus of hard strings and (passage,
// claim) pairs, for every tokenizer.json given, as JSON lines:
//   {"tok": file, "a": text, "b": text or null, "max": n, "ids": [...], "type_ids": [...], "mask": [...]}
// b null: a single sequence. max > 0: the pair truncated to max tokens with
// Hugging Face's OnlyFirst strategy (the passage alone is cut), for budgets
// where the claim leaves room for at least one passage token.
//
//   node reference.cjs OUT.jsonl TOKENIZER.json... [--data DIR]...
//
// DIR holds corpus.jsonl and claims.jsonl (the harness formats): its first 300
// claims with the text of the document each cites join the pairs.
// `make tokenizer-ref` runs it; `make bench-tokenizer` adds --bench.
const fs = require("fs");
const path = require("path");
const tk = require("tokenizers");

const args = process.argv.slice(2);
const out = args.shift();
const files = [], dataDirs = [];
let bench = false;
while (args.length) {
  const a = args.shift();
  if (a === "--data") dataDirs.push(args.shift());
  else if (a === "--bench") bench = true;
  else files.push(a);
}
const here = __dirname;
const strings = JSON.parse(fs.readFileSync(path.join(here, "strings.json"), "utf8"));

function readJSONL(p) {
  return fs.readFileSync(p, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}
function pairsFrom(dir, n) {
  const docs = new Map();
  for (const d of readJSONL(path.join(dir, "corpus.jsonl"))) docs.set(d.doc_id, d.text);
  const spans = new Map();
  if (fs.existsSync(path.join(dir, "spans.jsonl")))
    for (const s of readJSONL(path.join(dir, "spans.jsonl"))) spans.set(s.span_id, s.doc_id);
  const out = [];
  for (const c of readJSONL(path.join(dir, "claims.jsonl"))) {
    if (out.length >= n) break;
    const cite = (c.cite || [])[0];
    const doc = docs.get(cite) ?? docs.get(spans.get(cite)) ?? "";
    out.push([doc, c.text]);
  }
  return out;
}

const pairs = [];
for (let i = 0; i < strings.length; i++) pairs.push([strings[i], strings[(i * 7 + 3) % strings.length]]);
pairs.push(...pairsFrom(path.join(here, "../../../../benchdata/demo"), 150));
for (const d of dataDirs) pairs.push(...pairsFrom(d, 300));

async function main() {
  const lines = [];
  const benchRows = [];
  for (const f of files) {
    // Model folders all hold a tokenizer.json: name those by their folder.
    const name = path.basename(f) === "tokenizer.json" ? path.basename(path.dirname(f)) + "/tokenizer.json" : path.basename(f);
    const t = tk.Tokenizer.fromFile(f);
    // A model's tokenizer.json may declare its training length; the lines
    // below set each limit themselves (max 0: none).
    t.disableTruncation();
    const emit = (a, b, max, e) => lines.push(JSON.stringify({ tok: name, a, b, max, ids: e.getIds(), type_ids: e.getTypeIds(), mask: e.getAttentionMask() }));
    for (const s of strings) emit(s, null, 0, await t.encode(s));
    for (const [a, b] of pairs) emit(a, b, 0, await t.encode(a, b));
    // Truncation: a few budgets per pair that cut something.
    for (const [a, b] of pairs) {
      const full = await t.encode(a, b);
      const la = (await t.encode(a, null, { addSpecialTokens: false })).getLength();
      const lb = (await t.encode(b, null, { addSpecialTokens: false })).getLength();
      const added = full.getLength() - la - lb;
      for (const max of [added + lb + 1, added + lb + 2, added + lb + Math.floor(la / 2), 16, 24, 64]) {
        // Only where the claim leaves room for a passage token: the Go
        // package's own rule applies when it does not.
        if (max - added <= lb || max >= full.getLength()) continue;
        t.setTruncation(max, { strategy: "OnlyFirst" });
        emit(a, b, max, await t.encode(a, b));
        t.disableTruncation();
      }
    }
    if (bench) {
      // Pairs per second on the same pairs: one call at a time (one core),
      // and all calls at once (the binding runs each on Node's thread pool:
      // all cores). Its encodeBatch takes single sequences only.
      const bp = pairs.slice(strings.length, strings.length + 150); // the demo pairs, as the Go benchmark
      const reps = 20;
      let t0 = process.hrtime.bigint();
      for (let r = 0; r < reps; r++) for (const [a, b] of bp) await t.encode(a, b);
      const one = (reps * bp.length) / (Number(process.hrtime.bigint() - t0) / 1e9);
      t0 = process.hrtime.bigint();
      for (let r = 0; r < reps; r++) await Promise.all(bp.map(([a, b]) => t.encode(a, b)));
      const all = (reps * bp.length) / (Number(process.hrtime.bigint() - t0) / 1e9);
      benchRows.push(`${name}: ${bp.length} pairs, ${one.toFixed(0)} pairs/s one call at a time, ${all.toFixed(0)} pairs/s all at once`);
    }
  }
  fs.writeFileSync(out, lines.join("\n") + "\n");
  console.log(`tokenizers reference: ${lines.length} encodings of ${strings.length} strings and ${pairs.length} pairs by ${files.length} tokenizers → ${out}`);
  for (const r of benchRows) console.log("tokenizers (Rust, Node binding) " + r);
}
main().catch((e) => { console.error(e); process.exit(1); });
