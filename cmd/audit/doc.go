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
//
// Results go to stdout; logs (log/slog) and progress to stderr. Exit codes:
// 0 success; 1 a --fail-on gate failed; 2 usage or input error (every input
// defect is printed as file:line:col: field: message); 3 a backend or
// internal failure; 130 interrupted. Each command's --help has the details.
package main
