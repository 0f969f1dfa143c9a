package audit

import (
	"context"
	"slices"

	"github.com/claimaudit/claimaudit/metrics"
)

// outcomeSpool holds the decided claims' outcomes on disk from the moment
// each is decided until the records file is closed: decide+write keeps
// nothing per claim in memory while its writer's buffers are at their
// largest, and the reports read the outcomes back into one slice of
// exactly the run's length (growing a slice by appending would hold two
// copies of it at the end).
type outcomeSpool struct {
	*recordFile
	n int
}

// newOutcomeSpool makes the spool in the run's staging folder (named like
// the other spools, so a killed run's is swept the same way).
func newOutcomeSpool(dir string) (*outcomeSpool, error) {
	f, err := newRecordFile(dir, ".spool-outcomes-*.bin")
	if err != nil {
		return nil, err
	}
	return &outcomeSpool{recordFile: f}, nil
}

func (s *outcomeSpool) add(o *metrics.Outcome) error {
	s.n++
	return s.write(func(c *spoolCodec) { c.outcome(o) })
}

// load reads every outcome back, in order; the strings that repeat across
// claims (type, source, importance, rule, metadata) are held once.
func (s *outcomeSpool) load(ctx context.Context) ([]metrics.Outcome, error) {
	outs := make([]metrics.Outcome, s.n)
	strs := interner{}
	err := s.each(ctx, "outcome spool", func(i int, d *spoolCodec) error {
		if i < len(outs) {
			d.readOutcome(&outs[i], strs)
		}
		return nil
	})
	return outs, err
}

// outcome writes every field of o; a test fills them by reflection and
// asserts the round trip. Strings are written as they are (an outcome is
// read back by this run only, never through JSON).
func (c *spoolCodec) outcome(o *metrics.Outcome) {
	c.rawStr(o.ID)
	c.int(int64(o.Fold))
	c.int(int64(o.Gold))
	c.bool(o.Abstained)
	c.int(int64(o.Predicted))
	c.bool(o.Scored)
	for _, z := range o.Logits {
		c.float(z)
	}
	c.rawStr(o.Type.String())
	c.rawStr(o.Source)
	c.rawStr(o.Importance.String())
	c.float(o.LatencyMS)
	// nil and empty differ (nil: the gold names no evidence).
	if o.EvidenceRanks == nil {
		c.uint(0)
	} else {
		c.uint(uint64(len(o.EvidenceRanks)) + 1)
		for _, r := range o.EvidenceRanks {
			c.int(int64(r))
		}
	}
	if o.Meta == nil {
		c.uint(0)
	} else {
		c.uint(uint64(len(o.Meta)) + 1)
		keys := make([]string, 0, len(o.Meta))
		for k := range o.Meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			c.rawStr(k)
			c.rawStr(o.Meta[k])
		}
	}
	c.rawStr(o.Rule.String())
	c.int(int64(o.RuleLabel))
	c.int(int64(o.VerifierLabel))
	c.rawStr(o.Tags.String())
}

func (c *spoolCodec) readOutcome(o *metrics.Outcome, strs interner) {
	o.ID = c.readStr()
	o.Fold = int8(c.readInt())
	o.Gold = metrics.Class(c.readInt())
	o.Abstained = c.readBool()
	o.Predicted = metrics.Class(c.readInt())
	o.Scored = c.readBool()
	for k := range o.Logits {
		o.Logits[k] = c.readFloat()
	}
	o.Type = metrics.NameOf(c.readStrIn(strs))
	o.Source = c.readStrIn(strs)
	o.Importance = metrics.NameOf(c.readStrIn(strs))
	o.LatencyMS = c.readFloat()
	if n := c.readLen(1); n > 0 {
		o.EvidenceRanks = make([]int, n-1)
		for i := range o.EvidenceRanks {
			o.EvidenceRanks[i] = int(c.readInt())
		}
	}
	if n := c.readLen(1); n > 0 {
		o.Meta = make(map[string]string, n-1)
		for range n - 1 {
			k := c.readStrIn(strs)
			o.Meta[k] = c.readStrIn(strs)
		}
	}
	o.Rule = metrics.NameOf(c.readStrIn(strs))
	o.RuleLabel = metrics.Class(c.readInt())
	o.VerifierLabel = metrics.Class(c.readInt())
	o.Tags = metrics.NameOf(c.readStrIn(strs))
}

// interner holds one copy of each distinct string.
type interner map[string]string

// readStrIn reads a string and returns strs' copy of it.
func (c *spoolCodec) readStrIn(strs interner) string {
	n := c.readLen(1)
	b := c.b[:n]
	c.b = c.b[n:]
	if s, ok := strs[string(b)]; ok { // no allocation to look up
		return s
	}
	s := string(b)
	strs[s] = s
	return s
}

// rawStr writes s byte for byte (str makes it valid UTF-8 first).
func (c *spoolCodec) rawStr(s string) {
	c.uint(uint64(len(s)))
	c.b = append(c.b, s...)
}
