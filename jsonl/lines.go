package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// DefaultMaxLineBytes bounds one JSONL line. Lines of at least 64 MiB must be
// accepted; the cap exists so a file with no newline cannot exhaust memory.
const DefaultMaxLineBytes = 256 << 20

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// LineReader yields the non-blank lines of a JSONL stream with their 1-based
// line numbers. It strips a UTF-8 byte-order mark at the start of any line
// (files joined with cat keep each one's mark) and a trailing carriage
// return, and never holds more than one line in memory. The slice
// returned by Next is only valid until the following call.
type LineReader struct {
	ctx     context.Context
	r       *bufio.Reader
	buf     []byte
	line    int
	maxLine int
	err     error
	text    bool // a non-blank line was read
}

// NewLineReader wraps r. maxLine <= 0 means DefaultMaxLineBytes.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	return &LineReader{ctx: context.Background(), r: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine}
}

// NewLineReaderContext is NewLineReader whose Next returns ctx's error once
// ctx is done, also in the middle of a line (a file without newlines, such
// as /dev/zero, is read 64 KiB at a time without end).
func NewLineReaderContext(ctx context.Context, r io.Reader, maxLine int) *LineReader {
	lr := NewLineReader(r, maxLine)
	lr.ctx = ctx
	return lr
}

// Next returns the next non-blank line. At the end of input it returns
// io.EOF. A line longer than the cap yields an error wrapping ErrLineTooLong
// for that line (its bytes are skipped, not buffered); reading may continue
// with the following line.
func (lr *LineReader) Next() (line []byte, lineNo int, err error) {
	for {
		if lr.err != nil {
			return nil, lr.line, lr.err
		}
		lr.buf = lr.buf[:0]
		tooLong, sawBytes := false, false
		for {
			if err := lr.ctx.Err(); err != nil {
				return nil, lr.line + 1, err
			}
			chunk, err := lr.r.ReadSlice('\n')
			sawBytes = sawBytes || len(chunk) > 0
			// A control byte JSON never holds raw (/dev/zero,
			// /dev/urandom, a binary file), on any line, or a first
			// line past the cap, says the stream is not text: the
			// reading stops there, instead of reading an endless
			// stream line after line or to a newline that never comes.
			if col := controlByte(chunk); col >= 0 {
				lr.err = Errorf(ErrNotText, "byte 0x%02x at column %d: not JSON Lines text", chunk[col], len(lr.buf)+col+1)
				return nil, lr.line + 1, lr.err
			}
			if !lr.text && len(lr.buf)+len(chunk) > lr.maxLine+2 {
				lr.err = Errorf(ErrNotText, "the first line is longer than %d bytes: not JSON Lines text", lr.maxLine)
				return nil, lr.line + 1, lr.err
			}
			if !tooLong {
				// +2 leaves room for the "\r\n" that is not part of the line.
				if len(lr.buf)+len(chunk) > lr.maxLine+2 {
					tooLong = true
					lr.buf = lr.buf[:0]
				} else {
					lr.buf = append(lr.buf, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil {
				lr.err = err // io.EOF or a read failure: reported on the next call
				if err != io.EOF {
					return nil, lr.line + 1, err
				}
			}
			break
		}
		if !sawBytes {
			continue // lr.err is set: report it
		}
		lr.line++
		if tooLong {
			return nil, lr.line, Errorf(ErrLineTooLong, "line longer than %d bytes", lr.maxLine)
		}
		b := bytes.TrimPrefix(lr.buf, utf8BOM)
		b = bytes.TrimSuffix(b, []byte{'\n'})
		b = bytes.TrimSuffix(b, []byte{'\r'})
		if len(b) > lr.maxLine {
			return nil, lr.line, Errorf(ErrLineTooLong, "line longer than %d bytes", lr.maxLine)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		lr.text = true
		return b, lr.line, nil
	}
}

// controlByte is the index of the first byte of b that JSON text never
// holds raw (a control character but tab, newline and carriage return),
// or -1.
func controlByte(b []byte) int {
	for i, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}

// TextGuard wraps the reader of a line-oriented text input another parser
// reads (CSV): it fails with ErrNotText when a line holds a control byte
// no text holds (/dev/zero, a binary file), and with ErrLineTooLong
// when a line passes maxLine bytes, so an endless or sparse stream is
// refused instead of held in memory whole.
func TextGuard(r io.Reader, maxLine int) io.Reader {
	return &textGuard{r: r, max: maxLine}
}

type textGuard struct {
	r    io.Reader
	max  int
	line int // bytes of the current line so far
	err  error
}

func (g *textGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			g.line = 0
			continue
		}
		if c < 0x20 && c != '\t' && c != '\r' {
			g.err = Errorf(ErrNotText, "byte 0x%02x at column %d: not a text file", c, g.line+1)
			return i, g.err
		}
		if g.line++; g.line > g.max {
			g.err = Errorf(ErrLineTooLong, "a line longer than %d bytes", g.max)
			return i, g.err
		}
	}
	return n, err
}
