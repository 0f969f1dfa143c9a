package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimaudit/claimaudit/reports"
	"github.com/claimaudit/claimaudit/userfile"
)

// spanTags are the spans file's tags by span id (a span's passage id is
// its span id), only of spans that have tags.
type spanTags map[string][]string

// of is the tags of the deciding passage; nil when none decided or it has
// none.
func (t spanTags) of(used *reports.EvidenceUsed) []string {
	if used == nil {
		return nil
	}
	return t[used.PassageID]
}

// readSpanTags reads the tags of the spans file (validated when the run
// started); nil without a spans file.
func (o *Options) readSpanTags(ctx context.Context) (spanTags, error) {
	if o.SpansPath == "" {
		return nil, nil
	}
	f, err := userfile.Open(ctx, o.SpansPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tags := spanTags{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for line := 1; sc.Scan(); line++ {
		if line%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var s struct {
			SpanID string   `json:"span_id"`
			Tags   []string `json:"tags"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", o.SpansPath, line, err)
		}
		if len(s.Tags) > 0 {
			tags[s.SpanID] = s.Tags
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", o.SpansPath, err)
	}
	return tags, nil
}
