package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/adjudicate/lexical"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile wraps a verifier: it writes a secret into every rationale and
// answers one claim with overflowing logits.
type hostile struct {
	adjudicate.Verifier
	bad, secret string
}

func (h *hostile) Verify(ctx context.Context, b []adjudicate.Pair) ([]adjudicate.Verdict, error) {
	out, err := h.Verifier.Verify(ctx, b)
	for i := range out {
		out[i].Rationale += " (sent with " + h.secret + ")"
		if b[i].ClaimID == h.bad {
			out[i].Logits = [3]float64{1e300, -1e300, 0}
		}
	}
	return out, err
}

func (h *hostile) Secrets() []string { return []string{h.secret} }

// Through a whole run: the claim with overflowing logits is an error
// record (issue 24 case 1), the others are verdicts, and the verifier's
// secret is in no record, report or summary (case 10).
func TestRunChecksLogitsAndRedactsSecrets(t *testing.T) {
	const secret = "sk-audit-run-7f3e9a"
	out := t.TempDir()
	o := demoOptions(t, out)
	o.NewVerifier = func(s adjudicate.CorpusStats) (adjudicate.Verifier, error) {
		v, err := lexical.New("", s)
		return &hostile{Verifier: v, bad: "c_0000010", secret: secret}, err
	}
	res, err := Run(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Errors)
	redacted := 0
	for _, r := range records(t, out) {
		assert.NotContains(t, r.Rationale, secret)
		if strings.Contains(r.Rationale, adjudicate.Redacted) {
			redacted++
		}
		if r.ClaimID == "c_0000010" {
			require.NotNil(t, r.Error)
			assert.Contains(t, *r.Error, "verifier returned invalid logits")
			assert.Nil(t, r.PredictedLabel)
			assert.Nil(t, r.LogitSupported)
		} else {
			assert.Nil(t, r.Error, r.ClaimID)
		}
	}
	assert.Equal(t, 599, redacted)
	require.NoError(t, filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.NotContains(t, string(b), secret, p)
		return nil
	}))
}

// Issue 24 case 5 for library callers: a claims file without claims is
// ErrNoClaims, not an empty run.
func TestRunRefusesNoClaims(t *testing.T) {
	claims := filepath.Join(t.TempDir(), "claims.jsonl")
	require.NoError(t, os.WriteFile(claims, []byte("\xEF\xBB\xBF\n \n"), 0o644))
	o := demoOptions(t, t.TempDir())
	o.ClaimsPath, o.GoldPath = claims, ""
	_, err := Run(context.Background(), o)
	assert.ErrorIs(t, err, ErrNoClaims)
}
