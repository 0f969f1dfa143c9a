// Command audit audits claims against a curated reference corpus and
// measures the verifier that judged them.
//
// Usage:
//
//	audit validate [--corpus F [--spans F]] [--claims F [--gold F]] [--json]
//	audit index    --corpus F [--spans F] --index DIR [--force]
//	audit search   --index DIR [--k N] QUERY...
//	audit extract  --input F --out F [--include-hedged] [--include-contextual]
//	audit numcheck --policy P --claim VALUE --token TEXT
//	audit lint     --input F --facts F [--soften STYLE --out F] [--unverifiable-severity S] [--mismatch-severity S]
//	audit run      --corpus F [--spans F] --claims F [--gold F] --out DIR [--fail-on EXPR] ...
//	audit train    (--corpus F [--spans F] --claims F [--gold F] | --set DIR ...) --out weights.json [--leave-one-out]
//	audit report   --records F [--records F ...] --out DIR [--fail-on EXPR]
//	audit calibrate --records F --out DIR [--sweep]
//	audit diff     A B [--fail-on EXPR] [--json]   (A, B: output folders or records files)
//	audit gen      --out DIR --claims N [--docs M] [--seed S]
//	audit review   --run DIR --n N --strategy uniform|stratified|active [--seed S] --out QUEUE
//	audit review   --import F [--import F ...] --queue QUEUE
//	audit estimate --run DIR --queue QUEUE [--reviews F] --out DIR [--fail-on EXPR] [--json]
//
// Results go to stdout; logs (log/slog) and progress to stderr. Exit codes:
// 0 success; 1 a --fail-on gate failed; 2 usage or input error (every input
// defect is printed as file:line:col: field: message); 3 a backend or
// internal failure; 130 interrupted. Each command's --help has the details.
package main
