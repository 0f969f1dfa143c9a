package adjudicate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

type plainVerifier struct{}

func (plainVerifier) Verify(context.Context, []Pair) ([]Verdict, error) { return nil, nil }

type queryVerifier struct {
	plainVerifier
	byDefault bool
}

func (q queryVerifier) QueryByDefault() bool { return q.byDefault }

func TestReadsQuery(t *testing.T) {
	judge, pair := queryVerifier{byDefault: true}, queryVerifier{byDefault: false}
	for _, c := range []struct {
		mode string
		v    Verifier
		want bool
	}{
		{QueryAuto, judge, true}, {QueryAuto, pair, false}, {QueryAuto, plainVerifier{}, false},
		{QueryOn, judge, true}, {QueryOn, pair, true}, {QueryOn, plainVerifier{}, false},
		{QueryOff, judge, false}, {QueryOff, pair, false}, {QueryOff, plainVerifier{}, false},
	} {
		assert.Equal(t, c.want, ReadsQuery(c.mode, c.v), "%s %T", c.mode, c.v)
	}
}

func TestClaimSegment(t *testing.T) {
	assert.Equal(t, "Lake Orrin is 18 metres deep.", ClaimSegment(Pair{Claim: "Lake Orrin is 18 metres deep."}))
	assert.Equal(t, "Lake Orrin is 18 metres deep.\nQuestion: How deep is it?",
		ClaimSegment(Pair{Claim: "Lake Orrin is 18 metres deep.", Query: "How deep is it?"}))
}
