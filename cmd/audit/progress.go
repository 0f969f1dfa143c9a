package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// newProgress returns a callback for (done, total) updates: a progress bar
// with rate and ETA when stderr is a terminal, a log line every few seconds
// otherwise (nightly jobs keep readable logs).
func newProgress(e *env, label string) func(done, total int) {
	return newProgressUnit(e, label, "passages")
}

func newProgressUnit(e *env, label, unit string) func(done, total int) {
	if isTerminal(e.stderr) {
		var bar *progressbar.ProgressBar
		return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total,
					progressbar.OptionSetWriter(e.stderr),
					progressbar.OptionSetDescription(label),
					progressbar.OptionShowCount(),
					progressbar.OptionShowIts(),
					progressbar.OptionSetItsString(unit),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(e.stderr) }), // the final state stays
					progressbar.OptionThrottle(100*time.Millisecond),
				)
			}
			_ = bar.Set(done)
			if done >= total {
				_ = bar.Finish()
			}
		}
	}
	start := time.Now()
	var last time.Time
	return func(done, total int) {
		now := time.Now()
		if now.Sub(last) < 2*time.Second && done < total {
			return
		}
		last = now
		rate := float64(done) / now.Sub(start).Seconds()
		e.log.Info(label, "done", done, "total", total, "per_second", int(rate))
	}
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
