package main

import (
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
					progressbar.OptionClearOnFinish(),
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
