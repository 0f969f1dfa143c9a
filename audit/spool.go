package audit

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/claimaudit/claimaudit/adjudicate"
	"github.com/claimaudit/claimaudit/claims"
	"github.com/claimaudit/claimaudit/metrics"
	"github.com/claimaudit/claimaudit/outdir"
)

// spool holds the verified claims on disk between verification and the
// records, so memory does not grow with the number of claims.
//
// Each claim is one length-prefixed binary record (spoolCodec): the spool
// is written once and read back once per pass, and JSON's text encoding
// and reflection cost more CPU than the claims' decisions. The format is
// private to one run (the file is removed when the run ends), so it has no
// version. Decoding gives what a JSON round trip of the same value gave:
// empty slices and maps come back nil, invalid UTF-8 in a string comes back
// with each bad byte replaced by U+FFFD, and a Verdict's Err is not kept.
type spool struct {
	*recordFile
	// prelim is what calibration reads of each spooled claim's outcome
	// decided at T = 1, in spool order (metrics.ScoreOf: 32 bytes where a
	// metrics.Outcome is 120, the logits, gold label, decision and the
	// cross-fitting fold in place of the claim id): made as each claim is
	// spooled, so the calibrate stage need not read the spool back.
	prelim []metrics.Score
}

func newSpool(dir string) (*spool, error) {
	// The spool lives in the run's staging folder: a run killed part way
	// leaves it there, and the next run in the folder sweeps it (outdir).
	f, err := newRecordFile(dir, ".spool-*.bin")
	if err != nil {
		return nil, err
	}
	return &spool{recordFile: f}, nil
}

func (s *spool) add(v verified) error {
	return s.write(func(c *spoolCodec) { c.verified(&v) })
}

// each reads the spool from the start, in claim order.
func (s *spool) each(fn func(i int, v verified) error) error {
	return s.recordFile.each(context.Background(), "spool", func(i int, d *spoolCodec) error {
		var v verified
		d.readVerified(&v)
		if d.err != nil || len(d.b) != 0 {
			return nil // each reports the record as corrupt
		}
		return fn(i, v)
	})
}

// recordFile is a temporary file of length-prefixed binary records
// (spoolCodec), written once and read back from the start, each pass with
// a reader of its own.
type recordFile struct {
	f   *os.File
	w   *bufio.Writer
	enc spoolCodec
}

func newRecordFile(dir, pattern string) (*recordFile, error) {
	if err := os.MkdirAll(dir, outdir.DirMode); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &recordFile{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// write appends the record encode writes.
func (r *recordFile) write(encode func(*spoolCodec)) error {
	r.enc.b = r.enc.b[:0]
	encode(&r.enc)
	var n [binary.MaxVarintLen64]byte
	if _, err := r.w.Write(n[:binary.PutUvarint(n[:], uint64(len(r.enc.b)))]); err != nil {
		return err
	}
	_, err := r.w.Write(r.enc.b)
	return err
}

// each calls decode with every record in order; a record decode leaves
// unread bytes of, or fails to read, is corrupt (an error naming what and
// its number). It stops at decode's first error or when ctx is done.
func (r *recordFile) each(ctx context.Context, what string, decode func(i int, d *spoolCodec) error) error {
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	rd := bufio.NewReaderSize(io.NewSectionReader(r.f, 0, math.MaxInt64), 1<<16)
	var buf []byte
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		n, err := binary.ReadUvarint(rd)
		if err == io.EOF {
			return nil
		} else if err != nil || n > math.MaxInt32 {
			return fmt.Errorf("read %s: record %d: %w", what, i, errors.Join(err, errSpoolCorrupt))
		}
		buf = slices.Grow(buf[:0], int(n))[:n]
		if _, err := io.ReadFull(rd, buf); err != nil {
			return fmt.Errorf("read %s: record %d: %w", what, i, err)
		}
		d := spoolCodec{b: buf}
		if err := decode(i, &d); err != nil {
			return err
		}
		if d.err != nil || len(d.b) != 0 {
			return fmt.Errorf("read %s: record %d: %w", what, i, errors.Join(d.err, errSpoolCorrupt))
		}
	}
}

func (r *recordFile) remove() {
	if r == nil {
		return
	}
	r.f.Close()
	os.Remove(r.f.Name())
}

var errSpoolCorrupt = errors.New("corrupt spool record")

// spoolCodec writes (append to b) and reads (consume b) one verified
// claim. Every field of verified and of the types it holds is written; a
// test fills every field by reflection and asserts the round trip, so a
// field added to one of them and not here fails it.
type spoolCodec struct {
	b   []byte
	err error
}

func (c *spoolCodec) uint(v uint64) { c.b = binary.AppendUvarint(c.b, v) }
func (c *spoolCodec) int(v int64)   { c.b = binary.AppendVarint(c.b, v) }
func (c *spoolCodec) float(v float64) {
	c.b = binary.LittleEndian.AppendUint64(c.b, math.Float64bits(v))
}
func (c *spoolCodec) bool(v bool) {
	if v {
		c.b = append(c.b, 1)
	} else {
		c.b = append(c.b, 0)
	}
}

// str writes s as JSON would leave it: each byte that is not part of valid
// UTF-8 becomes U+FFFD.
func (c *spoolCodec) str(s string) {
	if !utf8.ValidString(s) {
		s = replaceInvalidBytes(s)
	}
	c.uint(uint64(len(s)))
	c.b = append(c.b, s...)
}

// replaceInvalidBytes replaces each byte of s that does not belong to a
// valid UTF-8 sequence with U+FFFD, as encoding/json does (unlike
// strings.ToValidUTF8, which replaces a run of them with one).
func replaceInvalidBytes(s string) string {
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

func (c *spoolCodec) strs(ss []string) {
	c.uint(uint64(len(ss)))
	for _, s := range ss {
		c.str(s)
	}
}

func (c *spoolCodec) scalar(s *claims.Scalar) {
	c.bool(s != nil)
	if s == nil {
		return
	}
	// As its JSON form: a number or a string, never both.
	c.bool(s.IsNum)
	if s.IsNum {
		c.float(s.Num)
	} else {
		c.str(s.Str)
	}
}

func (c *spoolCodec) claim(cl *claims.Claim) {
	c.str(cl.ID)
	c.str(cl.SourceID)
	c.str(cl.Text)
	c.str(cl.Subject)
	c.str(cl.Predicate)
	c.str(cl.Object)
	q := &cl.Qualifiers
	c.scalar(q.Quantity)
	c.str(q.Unit)
	c.str(q.Location)
	c.str(q.Population)
	c.str(q.Condition)
	c.bool(cl.Timeframe != nil)
	if tf := cl.Timeframe; tf != nil {
		c.str(tf.Start)
		c.str(tf.End)
		c.str(tf.AsOf)
	}
	c.str(cl.Modality)
	c.str(cl.Polarity)
	c.strs(cl.Normalization.Entities)
	c.scalar(cl.Normalization.Value)
	c.str(cl.Normalization.PredicateCanonical)
	c.str(cl.Notes)
	c.str(cl.Type)
	c.str(cl.Importance)
	c.strs(cl.Cite)
	c.str(cl.Evidence)
	c.str(string(cl.Label))
	keys := make([]string, 0, len(cl.Meta))
	for k := range cl.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same claim gives the same bytes
	c.uint(uint64(len(keys)))
	for _, k := range keys {
		c.str(k)
		c.str(cl.Meta[k])
	}
}

func (c *spoolCodec) verdict(v *adjudicate.Verdict) {
	for _, z := range v.Logits {
		c.float(z)
	}
	c.int(int64(v.Passage))
	c.str(v.Rationale)
	c.str(v.DecidedBy)
	c.bool(v.HardLabel)
	c.int(int64(v.Usage.PromptTokens))
	c.int(int64(v.Usage.CompletionTokens))
	c.int(int64(v.Usage.Calls))
	c.int(int64(v.Usage.Retries))
	c.uint(uint64(len(v.PassageLogits)))
	for _, z := range v.PassageLogits {
		for _, x := range z {
			c.float(x)
		}
	}
	// Err is never spooled (the scheduler made it the claim's error).
}

func (c *spoolCodec) verified(v *verified) {
	c.claim(&v.Claim)
	c.int(int64(v.Index))
	// 0 for nil, else 1 + the count: JSON kept an empty list apart from a
	// missing one here (no omitempty).
	if v.Passages == nil {
		c.uint(0)
	} else {
		c.uint(uint64(len(v.Passages)) + 1)
	}
	for i := range v.Passages {
		p := &v.Passages[i]
		c.str(p.ID)
		c.str(p.DocID)
		c.str(p.SpanID)
		c.int(int64(p.Start))
		c.int(int64(p.End))
		c.str(p.Text)
		c.float(p.Score)
		c.bool(p.Cited)
	}
	c.verdict(&v.Verdict)
	c.str(v.Err)
	c.float(v.LatencyMS)
	c.strs(v.GoldEvidence)
	c.bool(v.Fallback != nil)
	if v.Fallback != nil {
		c.verdict(v.Fallback)
	}
	c.strs(v.EvidenceFlags)
}

// The readers below consume c.b; the first defect sets c.err, after which
// every read returns zero values.

func (c *spoolCodec) fail() {
	if c.err == nil {
		c.err = errSpoolCorrupt
	}
	c.b = nil
}

func (c *spoolCodec) readUint() uint64 {
	v, n := binary.Uvarint(c.b)
	if n <= 0 {
		c.fail()
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *spoolCodec) readInt() int64 {
	v, n := binary.Varint(c.b)
	if n <= 0 {
		c.fail()
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *spoolCodec) readFloat() float64 {
	if len(c.b) < 8 {
		c.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(c.b))
	c.b = c.b[8:]
	return v
}

func (c *spoolCodec) readBool() bool {
	if len(c.b) < 1 || c.b[0] > 1 {
		c.fail()
		return false
	}
	v := c.b[0] == 1
	c.b = c.b[1:]
	return v
}

// readLen reads a count of items that take at least min bytes each.
func (c *spoolCodec) readLen(min int) int {
	n := c.readUint()
	if n > uint64(len(c.b)/min) {
		c.fail()
		return 0
	}
	return int(n)
}

func (c *spoolCodec) readStr() string {
	n := c.readLen(1)
	s := string(c.b[:n])
	c.b = c.b[n:]
	return s
}

// readStrs reads a list of strings; an empty one is nil, as after JSON's
// omitempty.
func (c *spoolCodec) readStrs() []string {
	n := c.readLen(1)
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = c.readStr()
	}
	return ss
}

func (c *spoolCodec) readScalar() *claims.Scalar {
	if !c.readBool() {
		return nil
	}
	if c.readBool() {
		return claims.NumScalar(c.readFloat())
	}
	return claims.StrScalar(c.readStr())
}

func (c *spoolCodec) readClaim(cl *claims.Claim) {
	cl.ID = c.readStr()
	cl.SourceID = c.readStr()
	cl.Text = c.readStr()
	cl.Subject = c.readStr()
	cl.Predicate = c.readStr()
	cl.Object = c.readStr()
	q := &cl.Qualifiers
	q.Quantity = c.readScalar()
	q.Unit = c.readStr()
	q.Location = c.readStr()
	q.Population = c.readStr()
	q.Condition = c.readStr()
	if c.readBool() {
		cl.Timeframe = &claims.Timeframe{Start: c.readStr(), End: c.readStr(), AsOf: c.readStr()}
	}
	cl.Modality = c.readStr()
	cl.Polarity = c.readStr()
	cl.Normalization.Entities = c.readStrs()
	cl.Normalization.Value = c.readScalar()
	cl.Normalization.PredicateCanonical = c.readStr()
	cl.Notes = c.readStr()
	cl.Type = c.readStr()
	cl.Importance = c.readStr()
	cl.Cite = c.readStrs()
	cl.Evidence = c.readStr()
	cl.Label = claims.Label(c.readStr())
	if n := c.readLen(2); n > 0 {
		cl.Meta = make(map[string]string, n)
		for range n {
			k := c.readStr()
			cl.Meta[k] = c.readStr()
		}
	}
}

func (c *spoolCodec) readVerdict(v *adjudicate.Verdict) {
	for i := range v.Logits {
		v.Logits[i] = c.readFloat()
	}
	v.Passage = int(c.readInt())
	v.Rationale = c.readStr()
	v.DecidedBy = c.readStr()
	v.HardLabel = c.readBool()
	v.Usage.PromptTokens = int(c.readInt())
	v.Usage.CompletionTokens = int(c.readInt())
	v.Usage.Calls = int(c.readInt())
	v.Usage.Retries = int(c.readInt())
	if n := c.readLen(24); n > 0 {
		v.PassageLogits = make([][3]float64, n)
		for i := range v.PassageLogits {
			for j := range v.PassageLogits[i] {
				v.PassageLogits[i][j] = c.readFloat()
			}
		}
	}
}

func (c *spoolCodec) readVerified(v *verified) {
	c.readClaim(&v.Claim)
	v.Index = int(c.readInt())
	if n := c.readLen(1); n > 0 {
		if n-1 > len(c.b)/8 {
			c.fail()
			return
		}
		v.Passages = make([]adjudicate.Passage, n-1)
		for i := range v.Passages {
			p := &v.Passages[i]
			p.ID = c.readStr()
			p.DocID = c.readStr()
			p.SpanID = c.readStr()
			p.Start = int(c.readInt())
			p.End = int(c.readInt())
			p.Text = c.readStr()
			p.Score = c.readFloat()
			p.Cited = c.readBool()
		}
	}
	c.readVerdict(&v.Verdict)
	v.Err = c.readStr()
	v.LatencyMS = c.readFloat()
	v.GoldEvidence = c.readStrs()
	if c.readBool() {
		v.Fallback = &adjudicate.Verdict{}
		c.readVerdict(v.Fallback)
	}
	v.EvidenceFlags = c.readStrs()
}

// claimSpool keeps the claims read while the claims file is validated, in
// file order, in the spool's binary form: the feed reads them back instead
// of parsing the JSON file a second time.
type claimSpool struct{ *recordFile }

func newClaimSpool(dir string) (*claimSpool, error) {
	f, err := newRecordFile(dir, ".spool-claims-*.bin")
	if err != nil {
		return nil, err
	}
	return &claimSpool{f}, nil
}

func (s *claimSpool) add(c claims.Claim) error {
	return s.write(func(e *spoolCodec) { e.claim(&c) })
}

// each reads the claims back from the start, in file order.
func (s *claimSpool) each(ctx context.Context, fn func(claims.Claim) error) error {
	return s.recordFile.each(ctx, "claim spool", func(_ int, d *spoolCodec) error {
		var c claims.Claim
		d.readClaim(&c)
		if d.err != nil || len(d.b) != 0 {
			return nil // each reports the record as corrupt
		}
		return fn(c)
	})
}

func (s *claimSpool) remove() {
	if s != nil {
		s.recordFile.remove()
	}
}
