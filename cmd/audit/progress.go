package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// newProgress returns a callback for (done, total) updates: a progress bar
// fitted to the terminal's width when stderr is a terminal, a log line
// every few seconds otherwise (nightly jobs keep readable logs).
func newProgress(e *env, label string) func(done, total int) {
	return newProgressUnit(e, label, "passages")
}

func newProgressUnit(e *env, label, unit string) func(done, total int) {
	if isTerminal(e.stderr) {
		b := &bar{w: e.stderr, width: func() int { return termWidth(e.stderr) }, label: label, unit: unit, now: time.Now}
		return b.update
	}
	var (
		mu    sync.Mutex
		rate  rateMeter
		last  time.Time
		first = true
	)
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		rate.observe(now, done)
		if !first && now.Sub(last) < 2*time.Second && done < total {
			return
		}
		first, last = false, now
		args := []any{"done", done, "total", total}
		if r, ok := rate.perSecond(now); ok {
			args = append(args, "per_second", int(r+0.5))
		}
		e.log.Info(label, args...)
	}
}

// rateMeter measures a rate from the first update it sees: the work done
// before that update (a first batch) is not counted against time it did
// not measure, and no rate is given until a second has passed, so neither
// end of a stage shows an absurd one (a whole cached stage finishing in a
// millisecond, one claim of six hundred after a batch's warm-up).
type rateMeter struct {
	t0    time.Time
	done0 int
	done  int
	seen  bool
}

// minRateSpan is the shortest span a rate is given over.
const minRateSpan = time.Second

func (m *rateMeter) observe(now time.Time, done int) {
	if !m.seen {
		m.t0, m.done0, m.seen = now, done, true
	}
	m.done = done
}

// perSecond is the rate since the first update, when one can be given.
func (m *rateMeter) perSecond(now time.Time) (float64, bool) {
	span := now.Sub(m.t0)
	if !m.seen || span < minRateSpan || m.done <= m.done0 {
		return 0, false
	}
	return float64(m.done-m.done0) / span.Seconds(), true
}

// bar draws one line, redrawn in place ("\r" … "\x1b[K"), never wider than
// the terminal less one column (a line that reaches the last column wraps
// on some terminals, and every redraw of a wrapped line leaves a line
// behind). Fields are dropped, least useful first, until it fits: the time
// left, the rate, the label; the bar itself narrows from 40 cells to 10.
// Its final state stays, on a line of its own.
type bar struct {
	mu       sync.Mutex
	w        io.Writer
	width    func() int
	label    string
	unit     string
	now      func() time.Time
	rate     rateMeter
	last     time.Time
	drawn    bool
	finished bool
}

// progress redraws at most this often (the final state always).
const progressThrottle = 100 * time.Millisecond

func (b *bar) update(done, total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	now := b.now()
	b.rate.observe(now, done)
	end := done >= total
	if b.drawn && !end && now.Sub(b.last) < progressThrottle {
		return
	}
	b.last, b.drawn = now, true
	line := b.line(done, total, now, b.width())
	if end {
		b.finished = true
		fmt.Fprintf(b.w, "\r%s\x1b[K\n", line)
		return
	}
	fmt.Fprintf(b.w, "\r%s\x1b[K", line)
}

// line is the bar's text for a terminal of width columns. Each field has
// a fixed width for the whole stage (the count as wide as total/total, the
// rate and the time left as wide as they can reasonably get), so the bar
// neither jumps nor changes width as the numbers change.
func (b *bar) line(done, total int, now time.Time, width int) string {
	avail := width - 1
	frac := 1.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	tw := len(strconv.Itoa(total))
	pct := fmt.Sprintf("%3d%%", int(frac*100))
	count := fmt.Sprintf("%*d/%d", tw, done, total)
	rate, eta := "", ""
	if r, ok := b.rate.perSecond(now); ok {
		rate = humanRate(r) + "/s"
		if b.unit != "" {
			rate = humanRate(r) + " " + b.unit + "/s"
		}
		if done < total {
			eta = shortDuration(time.Duration(float64(total-done)/r*float64(time.Second))) + " left"
		}
	}
	// name, reserved width (0: the field's own), text
	type field struct {
		w    int
		text string
	}
	label := field{utf8.RuneCountInString(b.label), b.label}
	fPct, fCount := field{4, pct}, field{len(count), count}
	fRate := field{len("99999 ") + utf8.RuneCountInString(b.unit) + len("/s"), rate}
	if b.unit == "" {
		fRate.w = len("99999/s")
	}
	fETA := field{len("59m59s left"), eta}
	bar := field{-1, ""}
	// The layouts, fullest first; the first whose fields leave the bar
	// at least minBar cells wins.
	const minBar, maxBar = 10, 40
	for _, l := range [][]field{
		{label, fPct, bar, fCount, fRate, fETA},
		{label, fPct, bar, fCount, fRate},
		{label, fPct, bar, fCount},
		{fPct, bar, fCount},
	} {
		fixed := len(l) - 1 + 2 // the spaces between fields, the bar's ends
		for _, f := range l {
			if f.w > 0 {
				fixed += f.w
			}
		}
		cells := min(maxBar, avail-fixed)
		if cells < minBar {
			continue
		}
		filled := int(frac * float64(cells))
		parts := make([]string, len(l))
		for i, f := range l {
			switch {
			case f.w < 0:
				parts[i] = "|" + strings.Repeat("█", filled) + strings.Repeat(" ", cells-filled) + "|"
			case i == len(l)-1:
				parts[i] = f.text // nothing after it to keep in place
			default:
				parts[i] = f.text + strings.Repeat(" ", max(0, f.w-utf8.RuneCountInString(f.text)))
			}
		}
		return strings.TrimRight(strings.Join(parts, " "), " ")
	}
	// Narrower than any layout: the count alone, cut to fit.
	s := pct + " " + count
	if r := []rune(s); len(r) > avail {
		s = string(r[:max(0, avail)])
	}
	return s
}

// humanRate is a rate with three significant digits at most: 0.42, 7.3,
// 594, 7304.
func humanRate(r float64) string {
	switch {
	case r >= 99.5:
		return fmt.Sprintf("%.0f", r)
	case r >= 9.995:
		return fmt.Sprintf("%.1f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// shortDuration is 42s, 3m05s, 1h02m.
func shortDuration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// termWidth is the width of the terminal w writes to, 80 when it cannot be
// read.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
			return c
		}
	}
	return 80
}

// newStages reports the pipeline's stages: on a terminal a line when each
// begins and one with its duration when it ends; otherwise a log line per
// finished stage.
func newStages(e *env) func(name string, done bool, elapsed time.Duration) {
	if isTerminal(e.stderr) {
		return func(name string, done bool, elapsed time.Duration) {
			if done {
				fmt.Fprintf(e.stderr, "✓ %-20s %s\n", stageLabel(name), elapsed.Round(time.Millisecond))
			} else {
				fmt.Fprintf(e.stderr, "▸ %s …\n", stageLabel(name))
			}
		}
	}
	return func(name string, done bool, elapsed time.Duration) {
		if done {
			e.log.Info("stage done", "stage", name, "seconds", elapsed.Seconds())
		}
	}
}

func stageLabel(name string) string { return strings.ReplaceAll(name, "_", " ") }

// plural is "1 claim", "2 claims".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
