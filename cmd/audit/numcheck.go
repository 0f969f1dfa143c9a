package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/claimaudit/claimaudit/numeric"
	"github.com/spf13/cobra"
)

func newNumcheckCmd(e *env) *cobra.Command {
	var policy, claim, token, qualifiers string
	var params numeric.PolicyParams
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "numcheck --policy P --claim VALUE --token TEXT",
		Short: "Check one numeric token against a claimed value under a verification policy",
		Long: `numcheck applies one numeric verification policy and prints the decision
with the policy used and the reason.

Policies: exact, rounded (--decimals), abbr (1.5K = 1500), tolerance (--abs-tol,
--rel-tol, and the token must carry a qualifier such as "about"), percent (12% = 0.12),
range (85-95% holds 90%), ratio (one third = 0.33), year (2021 = 2021-07-01), auto
(chosen by the token's shape). What does not parse is not verified (fail-closed).

A token that states a bound — "more than", "over", "at least", "no fewer than",
"less than", "under", "up to", "at most", "no more than", "nearly", "almost",
"between X and Y", or any of them after "not" — is verified when the claimed value
satisfies the bound ("more than 104" does not verify 100), under tolerance, range
and auto; exact, rounded, abbr, percent, ratio and year do not accept a bound.

Exit status: 0 verified, 1 not verified, 2 usage error.`,
		Example: `  audit numcheck --policy rounded --decimals 0 --claim 5.7 --token 6
  audit numcheck --policy tolerance --rel-tol 0.05 --claim 5.7 --token "about 5.8"
  audit numcheck --policy auto --claim 1500 --token 1.5K
  audit numcheck --policy auto --claim 100 --token "more than 104"   # not verified`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireFlags(cmd, "policy", "claim", "token"); err != nil {
				return err
			}
			if !slices.Contains(numeric.Policies, policy) {
				return usageErrorf("--policy %q is not one of %s", policy, strings.Join(numeric.Policies, ", "))
			}
			if params.AbsTol < 0 || params.RelTol < 0 || params.Decimals < 0 {
				return usageErrorf("--decimals, --abs-tol and --rel-tol must not be negative")
			}
			if qualifiers != "" {
				for _, q := range strings.Split(qualifiers, ",") {
					params.Qualifiers = append(params.Qualifiers, strings.TrimSpace(strings.ToLower(q)))
				}
			}
			d := numeric.Check(policy, params, claim, token)
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				if err := enc.Encode(d); err != nil {
					return err
				}
			} else {
				status := "verified"
				if !d.Verified {
					status = "not verified"
				}
				fmt.Fprintf(e.stdout, "%s (%s): %s\n", status, d.Policy, d.Reason)
			}
			if !d.Verified {
				return &exitError{code: exitGate, err: errors.New("not verified"), quiet: true}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&policy, "policy", "", "verification policy: "+strings.Join(numeric.Policies, ", ")+" (required)")
	f.StringVar(&claim, "claim", "", "the claimed value, e.g. 5.7, 1500, 12%, 2021 (required)")
	f.StringVar(&token, "token", "", "the numeric token to check, e.g. \"about 5.8\", 1.5K (required)")
	f.IntVar(&params.Decimals, "decimals", 0, "rounded: decimal places")
	f.Float64Var(&params.AbsTol, "abs-tol", 0, "tolerance: absolute tolerance δ")
	f.Float64Var(&params.RelTol, "rel-tol", 0, "tolerance: relative tolerance ρ (default 0.05 when neither is set)")
	f.StringVar(&qualifiers, "qualifiers", "", "tolerance: comma-separated qualifier words (default about, approximately, roughly, ...)")
	f.BoolVar(&asJSON, "json", false, "print the decision as JSON")
	return cmd
}
