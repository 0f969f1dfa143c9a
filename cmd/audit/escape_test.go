package main

import "testing"

// Control characters from corpus text or messages never reach a terminal
// raw: escape sequences (clear screen, retitle, CSI colour) are shown
// escaped; text, tabs, newlines and non-ASCII letters are kept.
func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain ünïcode\ttab\nline": "plain ünïcode\ttab\nline",
		"\x1b[2J\x1b[H":            `\x1b[2J\x1b[H`,
		"\x1b]0;pwned\x07":         `\x1b]0;pwned\x07`,
		"a\rb\x7fc\x00":            `a\x0db\x7fc\x00`,
		"c1 \u009b31m":             `c1 \u009b31m`,
		"bad \xff utf8":            `bad \xff utf8`,
	} {
		if got := termSafe(in); got != want {
			t.Errorf("termSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
