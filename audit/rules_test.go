package audit

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/rules"
	"github.com/stretchr/testify/require"
)

// With --rules none the records are those of the pipeline before the
// labelling-rule layer existed: the committed demo's labels, decisions,
// confidences and run id, claim by claim, as that pipeline wrote them
// (testdata/demo-records-before-rules.tsv); the new columns are empty.
// The verifier is the one of then: the embedded weights as they were
// (testdata/weights-before-rules.json; the embedded ones have since been
// retrained).
func TestRulesNoneReproducesTheRecordsBeforeRules(t *testing.T) {
	none, err := rules.Parse("none")
	require.NoError(t, err)
	out := t.TempDir()
	o := demoOptions(t, out)
	o.NewVerifier = func(s adjudicate.CorpusStats) (adjudicate.Verifier, error) {
		return lexical.New("testdata/weights-before-rules.json", s)
	}
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

// Seed 004 §7.9: a verifier that calls more than half of (at least 100)
// answered claims unsupported branches only from confidence 0.9.
func TestDegenerateUnsupportedRaisesTheBranchThreshold(t *testing.T) {
	mk := func(unsupported, other int) []metrics.Score {
		var outs []metrics.Score
		for i := 0; i < unsupported+other; i++ {
			p := metrics.Supported
			if i < unsupported {
				p = metrics.Unsupported
			}
			outs = append(outs, metrics.Score{Scored: true, Predicted: p})
		}
		return outs
	}
	deg, u, n := degenerateUnsupported(mk(51, 49))
	require.True(t, deg)
	require.Equal(t, [2]int{51, 100}, [2]int{u, n})
	deg, _, _ = degenerateUnsupported(mk(50, 50))
	require.False(t, deg, "half is not more than half")
	deg, _, _ = degenerateUnsupported(mk(60, 30))
	require.False(t, deg, "fewer than 100 answered claims say nothing")

	conf := 0.8
	o := metrics.Outcome{Scored: true, Predicted: metrics.Unsupported}
	require.Equal(t, "BRANCH", ClaimAction(o.Abstained, o.Predicted, &conf, 0, 0))
	require.Equal(t, "CONTINUE", ClaimAction(o.Abstained, o.Predicted, &conf, 0, BranchThresholdDegenerate))
	conf = 0.95
	require.Equal(t, "BRANCH", ClaimAction(o.Abstained, o.Predicted, &conf, 0, BranchThresholdDegenerate))
}
