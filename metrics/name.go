package metrics

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
)

// Name is a string that an outcome carries and that repeats across a
// run's claims — a claim type, an importance, a rule — held once per
// process and carried as 4 bytes (a string is 16): a run holds an outcome
// per claim until its reports are written. The zero Name is "". Names
// are never forgotten; the values they hold are few (enumerations of the
// claims schema, the rules' names).
type Name uint32

var names struct {
	mu  sync.Mutex
	ids map[string]Name
	// all[n] is Name n's string; a snapshot is only ever appended to, so a
	// reader needs no lock.
	all atomic.Pointer[[]string]
}

// NameOf is s's Name.
func NameOf(s string) Name {
	if s == "" {
		return 0
	}
	names.mu.Lock()
	defer names.mu.Unlock()
	if n, ok := names.ids[s]; ok {
		return n
	}
	var all []string
	if p := names.all.Load(); p != nil {
		all = *p
	} else {
		all = []string{""}
		names.ids = map[string]Name{}
	}
	if len(all) > math.MaxUint32 {
		panic("metrics.NameOf: more than 2³² distinct names")
	}
	s = strings.Clone(s)
	all = append(all, s)
	names.all.Store(&all)
	n := Name(len(all) - 1)
	names.ids[s] = n
	return n
}

// String is the name's string.
func (n Name) String() string {
	if n == 0 {
		return ""
	}
	return (*names.all.Load())[n]
}
