package review

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"

	"github.com/claimaudit/claimaudit/reports"
)

// passage is one retrieved passage as review.html shows it.
type passage struct {
	DocID    string `json:"doc_id"`
	Text     string `json:"text"`
	Deciding bool   `json:"deciding,omitempty"`
}

// passages are a record's retrieved passages in rank order, the one that
// decided the verdict marked.
func passages(r *reports.Record) []passage {
	out := make([]passage, len(r.Evidence))
	for i, e := range r.Evidence {
		out[i] = passage{DocID: e.DocID, Text: e.Snippet}
		if r.EvidenceUsed != nil && int(r.EvidenceUsed.Rank) == i+1 {
			out[i].Deciding = true
		}
	}
	return out
}

// pageItem is one claim of review.html. The verifier's own label is left
// out on purpose: a reviewer who sees it is anchored by it, and the
// estimates need labels that are the reviewer's own.
type pageItem struct {
	Position int       `json:"position"`
	ClaimID  string    `json:"claim_id"`
	Text     string    `json:"text"`
	Passages []passage `json:"passages"`
}

//go:embed review.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("review").Parse(pageTemplate))

// Page renders review.html: every queue claim with its passages, four
// answer buttons and a note each, answers kept in the browser's storage
// and saved as a JSON Lines file. It needs no network and no server; the
// claims are data (JSON, rendered as text), never markup.
func Page(q *Queue, byID map[string]*reports.Record) ([]byte, error) {
	items := make([]pageItem, 0, len(q.Items))
	for _, it := range q.Items {
		pi := pageItem{Position: it.Position, ClaimID: it.ClaimID}
		if r := byID[it.ClaimID]; r != nil {
			pi.Text, pi.Passages = r.Text, passages(r)
		}
		items = append(items, pi)
	}
	// encoding/json escapes <, > and & so no claim can close the script.
	data, err := json.Marshal(struct {
		RunID    string     `json:"run_id"`
		Strategy string     `json:"strategy"`
		Seed     uint64     `json:"seed"`
		Items    []pageItem `json:"items"`
	}{q.Plan.RunID, string(q.Plan.Strategy), q.Plan.Seed, items})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = pageTmpl.Execute(&b, struct {
		RunID string
		N     int
		Data  template.JS
	}{q.Plan.RunID, len(items), template.JS(data)})
	return b.Bytes(), err
}
