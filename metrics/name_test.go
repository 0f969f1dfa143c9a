package metrics

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A name gives its string back; equal strings give one name, the empty
// string the zero name; names made concurrently with reads of others stay
// right (run under -race by make race).
func TestNames(t *testing.T) {
	require.Equal(t, Name(0), NameOf(""))
	require.Equal(t, "", Name(0).String())
	a, b := NameOf("critical"), NameOf("material")
	require.NotEqual(t, a, b)
	require.Equal(t, a, NameOf(string([]byte("critical"))))
	require.Equal(t, "critical", a.String())
	require.Equal(t, "material", b.String())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				s := fmt.Sprintf("name-%d-%d", w, i%300)
				n := NameOf(s)
				if n.String() != s || a.String() != "critical" {
					t.Errorf("name %d gives %q, want %q", n, n.String(), s)
					return
				}
			}
		}()
	}
	wg.Wait()
}
