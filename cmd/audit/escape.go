package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// termSafe escapes the control characters of text that came from the
// user's files or a server (corpus passages, claim text, error messages
// quoting them) before it is printed: a terminal runs ESC, CSI and OSC
// sequences (clear the screen, retitle the window, rewrite what was
// printed), so each C0 control but tab and newline, DEL, each C1 control
// and each byte that is not UTF-8 is shown as \xNN or \u00NN instead.
func termSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f {
			return true
		}
		i += n
	}
	return false
}
