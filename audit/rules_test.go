package audit

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/rules"
	"github.com/stretchr/testify/require"
)

// With --rules none the records are those of the pipeline before the
// labelling-rule layer existed: the committed demo's labels, decisions,
// confidences and run id, claim by claim, as that pipeline wrote them
// (testdata/demo-records-before-rules.tsv); the new columns are empty.
func TestRulesNoneReproducesTheRecordsBeforeRules(t *testing.T) {
	none, err := rules.Parse("none")
	require.NoError(t, err)
	out := t.TempDir()
	o := demoOptions(t, out)
	o.Seed = 1 // audit run's default
	o.Rules = RuleOptions{Options: rules.Options{Enabled: none, Effect: rules.EffectOverride}}
	_, err = Run(context.Background(), o)
	require.NoError(t, err)
	f, err := os.Open("testdata/demo-records-before-rules.tsv")
	require.NoError(t, err)
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "#") {
			want = append(want, sc.Text())
		}
	}
	rs := records(t, out)
	require.Len(t, rs, len(want))
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for i, r := range rs {
		conf := ""
		if r.Confidence != nil {
			conf = fmt.Sprintf("%.6f", *r.Confidence)
		}
		got := strings.Join([]string{r.ClaimID, str(r.PredictedLabel), str(r.DecidedBy), str(r.VerifierLabel), fmt.Sprint(r.Abstained), conf, r.RunID}, "\t")
		require.Equal(t, want[i], got, "record %d", i)
		require.Empty(t, r.Flags, r.ClaimID)
		require.Nil(t, r.Rule, r.ClaimID)
		require.Nil(t, r.RuleLabel, r.ClaimID)
	}
}

// With every rule on, the demo's 48 hedged claims (modality possibility)
// come out insufficient, decided by the hedge rule or an earlier one.
func TestRulesDecideTheDemosHedgedClaims(t *testing.T) {
	all, err := rules.Parse("all")
	require.NoError(t, err)
	out := t.TempDir()
	o := demoOptions(t, out)
	o.Seed = 1
	o.Rules = RuleOptions{Options: rules.Options{Enabled: all, Effect: rules.EffectOverride}}
	_, err = Run(context.Background(), o)
	require.NoError(t, err)
	hedged, insufficient := 0, 0
	for _, r := range records(t, out) {
		if !strings.HasPrefix(r.Text, "It may be that") {
			continue
		}
		hedged++
		if r.PredictedLabel != nil && *r.PredictedLabel == "insufficient" {
			insufficient++
			require.Contains(t, r.Flags, rules.FlagHedged, r.ClaimID)
		}
	}
	require.Equal(t, 48, hedged)
	require.GreaterOrEqual(t, insufficient, 44, "at least 90%% of the hedged claims insufficient")
}
