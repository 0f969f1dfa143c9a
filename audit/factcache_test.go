package audit

import (
	"fmt"
	"testing"

	"github.com/claimaudit/claimaudit/lint"
	"github.com/stretchr/testify/require"
)

// The fact cache changes nothing but speed, also when it turns over: it
// holds the passage's facts, prepared.
func TestFactCacheKeepsFacts(t *testing.T) {
	texts := []string{"Meridian Rail employed 5,700 staff in 2023.", "The lake is 41.5 metres deep.", "Revenue rose 12% to $3.4 billion in 2022.", "No numbers here."}
	for _, size := range []int{2, 100} {
		fc := newFactCache(size)
		for round := 0; round < 3; round++ {
			for i, text := range texts {
				id := fmt.Sprint("p", i)
				require.Equal(t, lint.Prepare(lint.FactsFromText(id, text)), fc.facts(id, text), "cache %d round %d %q", size, round, text)
			}
		}
		require.LessOrEqual(t, fc.m.Len(), size)
	}
}
