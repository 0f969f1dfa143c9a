package review

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimaudit/claimaudit/estimate"
	"github.com/claimaudit/claimaudit/reports"
)

// cdp is a minimal Chrome DevTools Protocol client over
// --remote-debugging-pipe (commands on fd 3, replies and events on fd 4,
// each message ending in a NUL byte): enough to drive one page.
type cdp struct {
	w       *os.File
	mu      sync.Mutex
	next    int
	replies map[int]chan json.RawMessage
	events  chan map[string]json.RawMessage
	session string
	closed  chan struct{} // the browser's end of the pipe closed
	stderr  *lockedBuffer
}

// lockedBuffer is the browser's stderr, read while exec may still write it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}

func startChromium(t *testing.T, ctx context.Context) *cdp {
	bin := ""
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("review.html browser test skipped: no chromium on PATH (make test installs Debian's chromium where apt-get can; or set CHROMIUM)")
	}
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, chromeOut}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	chromeOut.Close()
	t.Cleanup(func() { ourEnd.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := &cdp{w: ourEnd, replies: map[int]chan json.RawMessage{}, events: make(chan map[string]json.RawMessage, 256),
		closed: make(chan struct{}), stderr: stderr}
	go c.readLoop(fromChrome)
	return c
}

func (c *cdp) readLoop(r *os.File) {
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			close(c.events)
			close(c.closed)
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		if idRaw, ok := m["id"]; ok {
			var id int
			_ = json.Unmarshal(idRaw, &id)
			c.mu.Lock()
			ch := c.replies[id]
			c.mu.Unlock()
			if ch != nil {
				b, _ := json.Marshal(m)
				ch <- b
			}
			continue
		}
		select {
		case c.events <- m:
		default: // events nobody waits for are dropped
		}
	}
}

// call sends a command (to the page's session unless browser) and returns
// its result.
func (c *cdp) call(ctx context.Context, browser bool, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan json.RawMessage, 1)
	c.replies[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if !browser && c.session != "" {
		msg["sessionId"] = c.session
	}
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w: chromium has exited? (its stderr: %q)", method, err, c.stderr.String())
	}
	select {
	case reply := <-ch:
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply, &r); err != nil {
			return nil, err
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	case <-c.closed:
		return nil, fmt.Errorf("%s: chromium exited (its stderr: %s)", method, c.stderr.String())
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func (c *cdp) eval(ctx context.Context, expr string, out any) error {
	res, err := c.call(ctx, false, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("%s: %s", expr, r.Exception.Text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// click clicks the middle of the element a selector names with real mouse
// events, as a person would.
func (c *cdp) click(ctx context.Context, selector string) error {
	var pt struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, selector)
	if err := c.eval(ctx, expr, &pt); err != nil {
		return fmt.Errorf("find %s: %w", selector, err)
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if _, err := c.call(ctx, false, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": pt.X, "y": pt.Y, "button": "left", "clickCount": 1}); err != nil {
			return err
		}
	}
	return nil
}

// waitEvent waits for an event of method whose params satisfy ok.
func (c *cdp) waitEvent(ctx context.Context, method string, ok func(json.RawMessage) bool) error {
	for {
		select {
		case m, open := <-c.events:
			if !open {
				return fmt.Errorf("chromium exited waiting for %s", method)
			}
			var name string
			_ = json.Unmarshal(m["method"], &name)
			if name == method && ok(m["params"]) {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		}
	}
}

// TestReviewPageInChromium opens review.html in headless Chromium from
// the file system (offline), types a reviewer's name, clicks an answer for
// every claim, saves, and imports the downloaded JSON Lines file: every
// click is an answer, the file passes validation, and the estimates come
// out of it.
func TestReviewPageInChromium(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := startChromium(t, ctx)

	records := syntheticRecords(60)
	q, err := Draw(records, Options{N: 8, Strategy: estimate.Uniform, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir, downloads := t.TempDir(), t.TempDir()
	if err := Write(dir, q, records, false); err != nil {
		t.Fatal(err)
	}
	res, err := c.call(ctx, true, "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	var target struct{ TargetID string }
	_ = json.Unmarshal(res, &target)
	res, err = c.call(ctx, true, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true})
	if err != nil {
		t.Fatal(err)
	}
	var att struct{ SessionID string }
	_ = json.Unmarshal(res, &att)
	c.session = att.SessionID
	if _, err := c.call(ctx, true, "Browser.setDownloadBehavior", map[string]any{"behavior": "allow", "downloadPath": downloads, "eventsEnabled": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(ctx, false, "Page.enable", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(ctx, false, "Page.navigate", map[string]any{"url": "file://" + filepath.Join(dir, HTMLFile)}); err != nil {
		t.Fatal(err)
	}
	if err := c.waitEvent(ctx, "Page.loadEventFired", func(json.RawMessage) bool { return true }); err != nil {
		t.Fatal(err)
	}
	// The reviewer's name, typed.
	if err := c.click(ctx, "#reviewer"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.call(ctx, false, "Input.insertText", map[string]any{"text": "Ada"}); err != nil {
		t.Fatal(err)
	}
	// One answer per claim, cycling through the four; the first claim is
	// answered twice (the second click replaces the first).
	choices := []string{"supported", "unsupported", "insufficient", "unsure"}
	want := map[string]string{}
	for i, it := range q.Items {
		l := choices[i%len(choices)]
		if i == 0 {
			if err := c.click(ctx, fmt.Sprintf(`#claim-%d button[data-label="insufficient"]`, it.Position)); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.click(ctx, fmt.Sprintf(`#claim-%d button[data-label=%q]`, it.Position, l)); err != nil {
			t.Fatal(err)
		}
		want[it.ClaimID] = l
	}
	var progress string
	if err := c.eval(ctx, `document.getElementById("progress").textContent`, &progress); err != nil {
		t.Fatal(err)
	}
	if progress != fmt.Sprintf("%d of %d answered", len(q.Items), len(q.Items)) {
		t.Errorf("progress %q after answering all %d", progress, len(q.Items))
	}
	if err := c.click(ctx, "#save"); err != nil {
		t.Fatal(err)
	}
	if err := c.waitEvent(ctx, "Browser.downloadProgress", func(p json.RawMessage) bool {
		var s struct{ State string }
		_ = json.Unmarshal(p, &s)
		return s.State == "completed"
	}); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(downloads, "answers-Ada.jsonl")
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatalf("the saved answers: %v", err)
	}
	t.Logf("saved %s:\n%s", saved, b)

	a := NewAnswers(q, 0)
	if err := a.ReadFile(ctx, saved, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.Errs.Err(); err != nil {
		t.Fatalf("the saved file does not import: %v", err)
	}
	if len(a.List) != len(q.Items) {
		t.Fatalf("%d answers imported, want %d", len(a.List), len(q.Items))
	}
	for _, an := range a.List {
		if an.Label != want[an.ClaimID] || an.Reviewer != "Ada" || an.ReviewedAt == "" {
			t.Errorf("answer %+v: want label %q by Ada with a time", an, want[an.ClaimID])
		}
	}
	est, err := Estimate(records, q, a.List)
	if err != nil {
		t.Fatal(err)
	}
	if est.Labelled != len(q.Items)-len(q.Items)/4 {
		t.Errorf("%d labelled claims, want %d (unsure answers left out)", est.Labelled, len(q.Items)-len(q.Items)/4)
	}
	if r := est.Rows[0]; r.Quantity != "share_supported" || r.Value == nil {
		t.Errorf("first estimate %+v: want share_supported with a value", r)
	}
	if !strings.Contains(strings.Join(est.Unused, ";"), "unsure") {
		t.Errorf("left out %v: want the unsure answers named", est.Unused)
	}
}

// syntheticRecords are n records with probabilities, a predicted label,
// a passage each and a deciding passage.
func syntheticRecords(n int) []reports.Record {
	labels := []string{"supported", "unsupported", "insufficient"}
	out := make([]reports.Record, n)
	for i := range out {
		p := [3]float64{0.2, 0.2, 0.2}
		k := i % 3
		p[k] = 0.6
		pred := labels[k]
		out[i] = reports.Record{ClaimID: fmt.Sprintf("c%03d", i), RunID: "r1", Text: fmt.Sprintf("Claim %d <b>not markup</b>", i),
			ClaimType: "fact", PredictedLabel: &pred, PSupported: &p[0], PUnsupported: &p[1], PInsufficient: &p[2],
			Evidence:     []reports.Evidence{{DocID: "d1", Snippet: "a passage"}, {DocID: "d2", Snippet: "the deciding passage"}},
			EvidenceUsed: &reports.EvidenceUsed{Rank: 2}}
	}
	return out
}
