package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a clock a test advances by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock           { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }
func screenLines(s string) []string      { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
func newTestBar(w *bytes.Buffer, width int, c *fakeClock) *bar {
	return &bar{w: w, width: func() int { return width }, label: "verifying claims", unit: "claims", now: c.now}
}

// Every state of the bar fits the terminal less one column, at any width,
// dropping fields as it narrows: no redraw ever wraps.
func TestBarFitsTheTerminalWidth(t *testing.T) {
	for _, width := range []int{20, 40, 60, 80, 100, 200} {
		c := newFakeClock()
		var buf bytes.Buffer
		b := newTestBar(&buf, width, c)
		for done := 0; done <= 50000; done += 997 {
			c.add(300 * time.Millisecond)
			line := b.line(done, 50000, c.now(), width)
			assert.LessOrEqual(t, utf8.RuneCountInString(line), width-1, "width %d: %q", width, line)
			b.rate.observe(c.now(), done)
		}
	}
	c := newFakeClock()
	b := newTestBar(&bytes.Buffer{}, 80, c)
	b.rate.observe(c.now(), 1000)
	c.add(10 * time.Second)
	b.rate.observe(c.now(), 11000)
	// 80 columns: 16 cells of bar, every field in place for the stage.
	assert.Equal(t, "verifying claims  22% |███             | 11000/50000 1000 claims/s  39s left", b.line(11000, 50000, c.now(), 80))
	assert.Equal(t, "verifying claims  22% |███               | 11000/50000 1000 claims/s", b.line(11000, 50000, c.now(), 70))
	assert.Equal(t, "verifying claims  22% |███               | 11000/50000", b.line(11000, 50000, c.now(), 55))
	assert.Equal(t, " 22% |████                | 11000/50000", b.line(11000, 50000, c.now(), 40))
	assert.Equal(t, " 22% 11000/", b.line(11000, 50000, c.now(), 12))
}

// The rate is measured from the first update and given only after a
// second: a stage that ends at once shows none (not "228223659 claims/s"),
// and the first claim after a batch's warm-up shows none either.
func TestBarRateIsSaneAtBothEnds(t *testing.T) {
	c := newFakeClock()
	var buf bytes.Buffer
	b := newTestBar(&buf, 80, c)
	b.update(1, 600)
	c.add(time.Millisecond)
	b.update(600, 600)
	out := buf.String()
	assert.NotContains(t, out, "/s")
	assert.True(t, strings.HasSuffix(out, "\n"), "the final state stays on a line of its own")
	assert.Contains(t, out, "600/600")

	c, buf = newFakeClock(), bytes.Buffer{}
	b = newTestBar(&buf, 80, c)
	for done := 1; done <= 600; done++ {
		b.update(done, 600)
		c.add(10 * time.Millisecond) // 100 claims/s
	}
	redraws := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\r")
	final := redraws[len(redraws)-1]
	assert.Contains(t, final, "100 claims/s", final)
	assert.NotContains(t, final, "left", "no time left once done")
	// Redraws are throttled: about one per 100 ms of the 6 s, not 600.
	assert.Less(t, strings.Count(buf.String(), "\r"), 70)
}

func TestRateFormats(t *testing.T) {
	for r, want := range map[float64]string{0.4213: "0.42", 7.31: "7.31", 42.26: "42.3", 594.4: "594", 7304.2: "7304"} {
		assert.Equal(t, want, humanRate(r))
	}
	for d, want := range map[time.Duration]string{42 * time.Second: "42s", 185 * time.Second: "3m05s", 3720 * time.Second: "1h02m"} {
		assert.Equal(t, want, shortDuration(d))
	}
}

// Without a terminal the progress is log lines: the first, then one every
// two seconds and the last; a rate only once one can be measured.
func TestProgressLogLinesHaveNoAbsurdRate(t *testing.T) {
	var stderr bytes.Buffer
	e := &env{stderr: &stderr}
	require.NoError(t, e.setupLog("info", "text", false))
	p := newProgressUnit(e, "verifying claims", "claims")
	p(1, 600)
	p(600, 600)
	lines := screenLines(stderr.String())
	require.Len(t, lines, 2, stderr.String())
	for _, l := range lines {
		assert.NotContains(t, l, "per_second", "no rate over a millisecond")
	}
}

// A bar without a unit (the metrics of every slice: claims × slices) shows
// a bare rate.
func TestBarWithoutUnit(t *testing.T) {
	c := newFakeClock()
	b := &bar{w: &bytes.Buffer{}, width: func() int { return 80 }, label: "metrics per slice", now: c.now}
	b.rate.observe(c.now(), 0)
	c.add(2 * time.Second)
	b.rate.observe(c.now(), 4000)
	line := b.line(4000, 80000, c.now(), 80)
	assert.Contains(t, line, " 2000/s ")
	assert.NotContains(t, line, " /s")
	assert.LessOrEqual(t, utf8.RuneCountInString(line), 79)
}
