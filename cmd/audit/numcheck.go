package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/claimaudit/claimaudit/numeric"
	"github.com/claimaudit/claimaudit/userfile"
	"github.com/spf13/cobra"
)

func newNumcheckCmd(e *env) *cobra.Command {
	var policy, policyFile, claim, token, qualifiers string
	var params numeric.PolicyParams
	var asJSON bool
	var tagged taggedCmd
	cmd := &cobra.Command{
		Use:   "numcheck --policy P (--claim VALUE --token TEXT | --outputs F --claims-table F)",
		Short: "Check numeric tokens against claimed values under a verification policy: one token, or the tagged numbers of model outputs",
		Long:  numcheckLong,
		Example: `  audit numcheck --policy rounded --decimals 0 --claim 5.7 --token 6
  audit numcheck --policy tolerance --rel-tol 0.05 --claim 5.7 --token "about 5.8"
  audit numcheck --policy auto --claim 1500 --token 1.5K
  audit numcheck --policy exact,round1 --claim 5.67 --token 5.7
  audit numcheck --policy '{"type": "tolerance", "tolerance": 0.02}' --claim 100 --token "about 102"
  audit numcheck --policy auto --claim 100 --token "more than 104"   # not verified
  audit numcheck --outputs outputs.jsonl --claims-table claims.jsonl --out numbers --fail-on 'flagged>0'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if params.AbsTol < 0 || params.RelTol < 0 || params.Decimals < 0 {
				return usageErrorf("--decimals, --abs-tol and --rel-tol must not be negative")
			}
			if qualifiers != "" {
				for _, q := range strings.Split(qualifiers, ",") {
					params.Qualifiers = append(params.Qualifiers, strings.TrimSpace(strings.ToLower(q)))
				}
			}
			var file numeric.PolicySet
			if policyFile != "" {
				data, err := userfile.ReadFile(policyFile, userfile.MaxSmall)
				if err != nil {
					return usageErrorf("--policy-file: %v", err)
				}
				if file, err = numeric.ParsePolicyFile(data); err != nil {
					return usageErrorf("%s: %v", policyFile, err)
				}
			}
			if tagged.outputs != "" || tagged.table != "" {
				if err := requireFlags(cmd, "outputs", "claims-table"); err != nil {
					return err
				}
				if cmd.Flags().Changed("claim") || cmd.Flags().Changed("token") {
					return usageErrorf("--claim and --token check one token; --outputs checks the tags of model outputs: give one or the other")
				}
				if _, err := file.Resolve(policy, params); err != nil {
					return usageErrorf("--policy: %v", err)
				}
				tagged.checker = numeric.TagChecker{Policies: file, Default: policy, Params: params}
				return tagged.run(cmd.Context(), e)
			}
			if err := requireFlags(cmd, "claim", "token"); err != nil {
				return err
			}
			pol, err := file.Resolve(policy, params)
			if err != nil {
				return usageErrorf("--policy: %v", err)
			}
			return checkToken(e, pol, claim, token, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&policy, "policy", numeric.PolicyExact, "verification policy: a mode ("+strings.Join(numeric.BuiltinNames, ", ")+"), a comma-separated set of them, a policy of --policy-file, or a JSON mode object; with --outputs, the policy of a tag that names none")
	f.StringVar(&policyFile, "policy-file", "", "JSON file of named policies (docs/format/policy.schema.json)")
	f.StringVar(&claim, "claim", "", "the claimed value, e.g. 5.7, 1500, 12%, 2021 (required)")
	f.StringVar(&token, "token", "", "the numeric token to check, e.g. \"about 5.8\", 1.5K (required)")
	f.IntVar(&params.Decimals, "decimals", 0, "rounded: decimal places")
	f.Float64Var(&params.AbsTol, "abs-tol", 0, "tolerance: absolute tolerance δ")
	f.Float64Var(&params.RelTol, "rel-tol", 0, "tolerance: relative tolerance ρ (default 0.05 when neither is set)")
	f.StringVar(&qualifiers, "qualifiers", "", "tolerance: comma-separated qualifier words (default about, approximately, roughly, ...)")
	f.BoolVar(&asJSON, "json", false, "print the decision as JSON")
	f.StringVar(&tagged.outputs, "outputs", "", "JSONL of model outputs {id, text} whose numbers carry <claim id=\"…\" policy=\"…\">…</claim> tags")
	f.StringVar(&tagged.table, "claims-table", "", "with --outputs: JSONL claim table {id, indicator, entity, year, value, unit, kind}")
	f.StringVar(&tagged.out, "out", "", "with --outputs: folder for numbers.parquet, number_counts.parquet and numbers.html")
	f.BoolVar(&tagged.force, "force", false, "with --out: write into a folder that holds files audit did not write")
	f.StringVar(&tagged.failOn, "fail-on", "malformed>0", "with --outputs: gates over the counts (verified, flagged, bare, malformed, numbers), e.g. flagged>0,bare>=10; exit 1 when one holds")
	return cmd
}

// checkToken checks one token against one claimed value and prints the
// decision; exit 1 when it is not verified.
func checkToken(e *env, pol numeric.Policy, claim, token string, asJSON bool) error {
	if _, err := numeric.ParseQuantity(claim); err != nil {
		// The claim is the user's input, not the model's: a value that is
		// not one number is a usage error, not a failed check.
		return usageErrorf("--claim %q is not a numeric value: %v", claim, err)
	}
	d := pol.Check(claim, token)
	if asJSON {
		if err := json.NewEncoder(e.stdout).Encode(d); err != nil {
			return err
		}
	} else {
		status := "verified"
		if !d.Verified {
			status = "not verified"
		}
		fmt.Fprintf(e.stdout, "%s (%s): %s\n", status, d.Policy, termSafe(d.Reason))
	}
	if !d.Verified {
		return &exitError{code: exitGate, err: errors.New("not verified"), quiet: true}
	}
	return nil
}

const numcheckLong = `numcheck applies a numeric verification policy and prints the decision
with the policy used and the reason.

Modes: exact, rounded (--decimals), round0, round1, ... (rounded to that many
decimals), abbr (1.5K = 1500), tolerance (--abs-tol, --rel-tol, and the token must
carry a qualifier such as "about"), percent (12% = 0.12), range (85-95% holds 90%),
ratio (one third = 0.33, 1 in 4 = 25%), year (2021 = July 2021 = 2021-07-01), auto
(chosen by the token's shape).

A policy is a set of modes: --policy exact,round1 verifies when any of them holds.
--policy also takes a mode as a JSON object ({"type": "rounded", "decimals": 1}), and
--policy-file names policies (docs/format/policy.schema.json) that --policy can use.

Fail-closed: a token verifies only if it is exactly one quantity — a number with
an optional sign, scale (1.5K, 2 million), unit (5 km, 100 ms, $29, 12%) and
qualifier. "5.7 or 9", "2024 and 2025", "five point seven" and "5.7abc" do not parse
and are not verified. Units of one dimension convert (5 km = 5000 m; 100 ms = 0.1 s);
"5000 m" against a length is metres, otherwise millions.

A token that states a bound — "more than", "over", "at least", "no fewer than",
"less than", "under", "up to", "at most", "no more than", "nearly", "almost",
"between X and Y", or any of them after "not" — is verified when the claimed value
satisfies the bound ("more than 104" does not verify 100), under tolerance, range
and auto; exact, rounded, abbr, percent, ratio and year do not accept a bound.

Tagged outputs: with --outputs and --claims-table, every <claim id="…" policy="…">…</claim>
tag of every output is checked against the claim table's row of that id, and every
number of the text is shown as verified (tag present, check passed), flagged (tag
present, check failed) or bare (no tag): counts per output on the terminal and, with
--out, numbers.parquet, number_counts.parquet and numbers.html (the outputs marked
up). A tag may name its policy in the reference implementation's form too
(policy="rounded" decimals="2", policy="tolerance" tolerance="0.02"). Malformed tags
(unclosed, a stray </claim>, an unknown claim id or policy, attributes that do not
parse) are printed as file:line: output, column: message; their numbers are flagged.
--fail-on (default malformed>0) exits 1 when a gate holds. See
docs/format/tagged-outputs.md.

Exit status: 0 verified, 1 not verified (or a gate holds), 2 usage error (a claim value that is not
one number, an unknown policy, an invalid policy file).`
