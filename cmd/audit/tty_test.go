//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of cols×rows: the master (what a
// terminal emulator reads) and the slave (the program's stderr).
func openPTY(t *testing.T, cols, rows uint16) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pty's slave: %v", err)
	}
	require.NoError(t, unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}))
	return m, s
}

// screen plays bytes on a terminal cols wide, as a terminal emulator
// would: "\r" back to column 0, "\n" a new line, "ESC [ K" clears to the
// end of the line, other escape sequences are ignored. It returns every
// line that was shown (scrolled off or not) and how many times a line
// wrapped because it reached the right edge.
func screen(b []byte, cols int) (lines []string, wraps int) {
	cur, col := []rune{}, 0
	flush := func() {
		lines = append(lines, strings.TrimRight(string(cur), " "))
		cur, col = []rune{}, 0
	}
	rs := []rune(string(b))
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			col = 0
		case r == '\n':
			flush()
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && !(rs[j] >= 0x40 && rs[j] <= 0x7e) {
				j++
			}
			if j < len(rs) && rs[j] == 'K' {
				cur = cur[:min(col, len(cur))]
			}
			i = j
		default:
			if col == cols {
				wraps++
				flush()
			}
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
		}
	}
	if len(cur) > 0 {
		flush()
	}
	return lines, wraps
}

// The variable parts of a run's terminal: durations, rates, the output
// folder.
var ttyMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	// a rate and the time left are shown once a second has passed: on a
	// loaded machine a short stage may show them
	{regexp.MustCompile(` +[0-9.]+( claims| passages)?/s( +\S+ left)?`), ""},
	{regexp.MustCompile(`[0-9]+(\.[0-9]+)?(µs|ms|s)\b`), "T"},
}

// TestTerminalAt80Columns runs the demo on an 80×24 pseudo-terminal and
// compares what the screen shows with testdata/tty80.golden
// (UPDATE_SCRIPTS=1 rewrites it): the stage lines, each bar's final state
// and the warnings, and not one line wrapped at the right edge.
func TestTerminalAt80Columns(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole run")
	}
	master, slave := openPTY(t, 80, 24)
	defer master.Close()
	var shown bytes.Buffer
	read := make(chan struct{})
	go func() {
		_, _ = io.Copy(&shown, master) // ends with EIO when the slave closes
		close(read)
	}()
	demo, err := filepath.Abs("../../benchdata/demo")
	require.NoError(t, err)
	golden, err := filepath.Abs(filepath.Join("testdata", "tty80.golden"))
	require.NoError(t, err)
	t.Chdir(t.TempDir()) // the output folder's name as a user types it
	out := "demo-out"
	var stdout bytes.Buffer
	args := []string{"run", "--corpus", demo + "/corpus.jsonl", "--spans", demo + "/spans.jsonl", "--claims", demo + "/claims.jsonl", "--out", out}
	e := func() *env {
		return &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: slave, backends: defaultBackends(), getenv: func(string) string { return "" }}
	}
	// Labelled, then again without gold (its warnings), reusing the index.
	// The screen is read by the copying goroutine until the slave closes:
	// only then is it ours to read (also for a failure's message).
	codes := []int{
		runWith(context.Background(), e(), append(args, "--gold", demo+"/gold.jsonl")),
		runWith(context.Background(), e(), append(args[:len(args)-1], out+"-nogold", "--index", out+"/index")),
	}
	slave.Close()
	<-read
	require.Equal(t, []int{0, 0}, codes, shown.String())
	lines, wraps := screen(shown.Bytes(), 80)
	assert.Zero(t, wraps, "a line reached the right edge and wrapped:\n%s", strings.Join(lines, "\n"))
	for _, l := range lines {
		assert.LessOrEqual(t, len([]rune(l)), 79, l)
	}
	got := strings.Join(lines, "\n") + "\n"
	for _, m := range ttyMasks {
		got = m.re.ReplaceAllString(got, m.with)
	}
	if os.Getenv("UPDATE_SCRIPTS") == "1" {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
	assert.NotContains(t, stdout.String(), "warning", "warnings are not results")
}

// The emulator itself: a redraw in place leaves one line, a line wider
// than the screen wraps.
func TestScreenEmulator(t *testing.T) {
	lines, wraps := screen([]byte("abc\r\x1b[Kxy\x1b[K\nnext\n"), 80)
	assert.Equal(t, []string{"xy", "next"}, lines)
	assert.Zero(t, wraps)
	lines, wraps = screen([]byte(strings.Repeat("x", 85)+"\n"), 80)
	assert.Equal(t, 1, wraps)
	assert.Len(t, lines, 2)
}
