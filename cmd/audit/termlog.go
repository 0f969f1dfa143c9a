package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// termHandler writes log records for a person at a terminal, in the
// stage lines' style rather than as key=value records: "  built index
// (dir=out/index, passages=1204)", "warning: …". Each line first clears
// the terminal's current line, where a progress bar may be drawn (the bar
// redraws itself on its next update).
type termHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	attrs []slog.Attr
	clear bool // prefix "\r\x1b[K"
	// width, when set, is the terminal's width: a longer line is wrapped
	// at spaces before its last column, continuation lines indented.
	width func() int
}

func newTermHandler(w io.Writer, level slog.Leveler, clear bool) *termHandler {
	return &termHandler{mu: &sync.Mutex{}, w: w, level: level, clear: clear}
}

func (h *termHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *termHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	if h.clear {
		b.WriteString("\r\x1b[K")
	}
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	default:
		b.WriteString("  ")
	}
	b.WriteString(r.Message)
	var kv []string
	add := func(a slog.Attr) bool {
		v := roundValue(a.Value.Resolve()).String()
		if strings.ContainsAny(v, " ,()") {
			v = fmt.Sprintf("%q", v)
		}
		kv = append(kv, a.Key+"="+v)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if len(kv) > 0 {
		b.WriteString(" (" + strings.Join(kv, ", ") + ")")
	}
	line := b.String()
	if h.width != nil {
		line = wrapLine(line, h.width()-1)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line+"\n")
	return err
}

// wrapLine breaks s at spaces into lines of at most cols columns (a word
// longer than that is cut), every line after the first indented by four
// spaces. An escape sequence at its start ("\r\x1b[K") takes no column.
func wrapLine(s string, cols int) string {
	const indent = "    "
	if cols < 20 {
		return s
	}
	prefix := ""
	if strings.HasPrefix(s, "\r\x1b[K") {
		prefix, s = "\r\x1b[K", s[len("\r\x1b[K"):]
	}
	var out []string
	line := []rune(s)
	for len(line) > cols {
		cut := cols
		for i := cols; i > cols/2; i-- {
			if line[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimRight(string(line[:cut]), " "))
		line = []rune(indent + strings.TrimLeft(string(line[cut:]), " "))
	}
	out = append(out, string(line))
	return prefix + strings.Join(out, "\n")
}

func (h *termHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup is not used by this program's logs; groups are flattened.
func (h *termHandler) WithGroup(string) slog.Handler { return h }

// logWarnings logs a summary's warnings, each a line a person must not
// miss: on stderr, in the chosen log format, never among the results.
func logWarnings(e *env, warnings []string) {
	for _, w := range warnings {
		e.log.Warn(strings.TrimSpace(w))
	}
}
