package resp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
)

// Limits of one command. Redis closes the connection of a client that
// sends a longer argument (proto-max-bulk-len, 512 MiB by default), and
// the Scanner holds each command whole until it has checked it, so the
// command as a whole is bounded too: that bound is the memory the
// Scanner may need.
const (
	MaxBulk    = 512 << 20
	MaxCommand = 1 << 30
	maxArgs    = math.MaxInt32 // Redis refuses a longer multibulk header
)

// Command is one command read by a Scanner.
type Command struct {
	// Raw is the command exactly as it was read. It is valid until the
	// next call to Next.
	Raw []byte
	// Offset is the position of the command's first byte in the stream.
	Offset int64
	// Args is the number of arguments, the command name included.
	Args int
	// args are the [start, end) positions in Raw of the first two
	// arguments, recorded while the command is checked, so that Name and
	// Key cost nothing more.
	args [2][2]int
}

// Name returns the first argument, the name of the command, as it was sent.
func (c *Command) Name() []byte { return c.Raw[c.args[0][0]:c.args[0][1]] }

// Key returns the second argument, and false when there is none (PING).
// It is the key of most commands (SET key value, HSET key f v, …), which
// is why a loader routes on it; some commands (EVAL, XREAD, MSET's second
// pair) have their keys elsewhere.
func (c *Command) Key() ([]byte, bool) {
	if c.Args < 2 {
		return nil, false
	}
	return c.Raw[c.args[1][0]:c.args[1][1]], true
}

// SyntaxError reports input that is not a stream of RESP commands.
type SyntaxError struct {
	// Offset is the position of the offending byte in the stream or, when
	// Truncated, of the first byte of the unfinished command.
	Offset int64
	// Msg says what was wrong.
	Msg string
	// Truncated reports that the stream ended inside a command; End is
	// then the length of the stream.
	Truncated bool
	End       int64
}

// Error says where the input went wrong: "byte 1234: expected '$', got 'x'".
func (e *SyntaxError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("truncated command at byte %d (the input ends at byte %d)", e.Offset, e.End)
	}
	return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
}

// errShort says that the bytes at hand end inside the command: more are
// needed before it can be checked further.
var errShort = errors.New("resp: short command")

// Scanner reads a stream of commands in RESP, each an array of bulk
// strings as AppendCommand produces, and checks each one strictly so that
// a loader can pass the bytes on as they are. Offsets count from 0 at the
// first byte the Scanner read.
type Scanner struct {
	r   *bufio.Reader
	off int64 // offset of the next command
	// view is what r had buffered when it was last peeked at, of which
	// the first used bytes are commands returned already: they are
	// discarded from r only when view runs out, so that the commands of a
	// buffer cost no call to r each.
	view []byte
	used int
	big  []byte // a command longer than r's buffer is assembled here
	st   scanState
	cmd  Command
	err  error // sticky: once the stream is bad, it stays bad
}

// scanState is how far the checking of the current command got, so that
// it resumes where it stopped when more bytes arrive instead of starting
// over.
type scanState struct {
	pos  int // bytes of the command checked so far
	left int // arguments still to check; -1 before the array header
	arg  int // index of the next argument
	need int // when inside an argument: bytes the command needs at least
	args [2][2]int
}

// NewScanner returns a Scanner reading from r. Commands that fit in r's
// buffer are returned without being copied, so a large buffer (1 MiB)
// pays.
func NewScanner(r *bufio.Reader) *Scanner { return &Scanner{r: r} }

// Next returns the next command. At the end of a stream that ends between
// two commands it returns io.EOF; on bad input it returns a *SyntaxError,
// and again on every later call.
func (s *Scanner) Next() (*Command, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.st = scanState{left: -1}
	if rest := s.view[s.used:]; len(rest) > 0 {
		err := s.check(rest)
		if err == nil {
			s.used += s.st.pos
			return s.command(rest[:s.st.pos]), nil
		}
		if err != errShort {
			return nil, s.fail(err, len(rest))
		}
	}
	// The rest of the view holds no whole command: the checking goes on
	// from where it stopped once more bytes are read.
	_, _ = s.r.Discard(s.used) // no more than is buffered: cannot fail
	s.view, s.used = nil, 0
	if cap(s.big) > 4<<20 {
		s.big = nil // memory stays flat after a huge command
	}
	if _, err := s.r.Peek(1); err != nil {
		return nil, s.fail(err, 0)
	}
	for {
		b, _ := s.r.Peek(s.r.Buffered())
		err := s.check(b)
		if err == nil {
			s.view, s.used = b, s.st.pos
			return s.command(b[:s.st.pos]), nil
		}
		if err != errShort {
			return nil, s.fail(err, len(b))
		}
		if len(b) == s.r.Size() {
			return s.nextBig(b)
		}
		if _, err := s.r.Peek(len(b) + 1); err != nil {
			return nil, s.fail(err, len(b))
		}
	}
}

// nextBig assembles a command that does not fit in the reader's buffer,
// of which b is the beginning. It reads no byte past the command: the
// length of an argument says how many bytes to take, and headers end at
// their line feed.
func (s *Scanner) nextBig(b []byte) (*Command, error) {
	s.big = append(s.big[:0], b...)
	_, _ = s.r.Discard(len(b))
	for {
		err := s.check(s.big)
		if err == nil {
			return s.command(s.big), nil
		}
		if err != errShort {
			return nil, s.fail(err, len(s.big))
		}
		if s.st.need > len(s.big) {
			n := len(s.big)
			s.big = grow(s.big, s.st.need)
			if m, err := io.ReadFull(s.r, s.big[n:]); err != nil {
				return nil, s.fail(err, n+m)
			}
			continue
		}
		line, err := s.r.ReadSlice('\n')
		s.big = append(s.big, line...)
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, s.fail(err, len(s.big))
		}
	}
}

// grow returns b extended to length n, keeping its contents.
func grow(b []byte, n int) []byte {
	if n <= cap(b) {
		return b[:n]
	}
	nb := make([]byte, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

func (s *Scanner) command(raw []byte) *Command {
	s.cmd = Command{Raw: raw, Offset: s.off, Args: s.st.arg, args: s.st.args}
	s.off += int64(len(raw))
	return &s.cmd
}

// fail records why the stream stopped. have is how many bytes of the
// current command had been read when err, an error from checking or
// reading, happened.
func (s *Scanner) fail(err error, have int) error {
	var syn *SyntaxError
	switch {
	case errors.As(err, &syn):
		s.err = err
	case err == io.EOF && have == 0:
		s.err = io.EOF
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		s.err = &SyntaxError{Offset: s.off, Truncated: true, End: s.off + int64(have)}
	default:
		s.err = fmt.Errorf("read at byte %d: %w", s.off+int64(have), err)
	}
	return s.err
}

// check continues checking the command that b begins with from where the
// last call stopped. It returns nil when the command is complete (its
// length is then s.st.pos), errShort when b ends inside it.
func (s *Scanner) check(b []byte) error {
	st := &s.st
	if st.left < 0 {
		n, next, err := s.header(b, st.pos, '*', maxArgs)
		if err != nil {
			return err
		}
		if n == 0 {
			// Redis silently ignores an empty array: it would send no
			// reply, and replies could no longer be matched to commands.
			return s.syntax(st.pos, "empty command (*0)")
		}
		st.left, st.pos = n, next
	}
	for st.left > 0 {
		n, next, err := s.header(b, st.pos, '$', MaxBulk)
		if err != nil {
			return err
		}
		end := next + n
		if end+2 > MaxCommand {
			return s.syntax(0, fmt.Sprintf("command longer than %d bytes", MaxCommand))
		}
		if end+2 > len(b) {
			st.need = end + 2
			return errShort
		}
		if b[end] != '\r' || b[end+1] != '\n' {
			at := end
			if b[end] == '\r' {
				at++
			}
			return s.syntax(at, fmt.Sprintf("expected CRLF after the %d bytes of argument %d, got %s", n, st.arg+1, quoteByte(b[at])))
		}
		if st.arg < len(st.args) {
			st.args[st.arg] = [2]int{next, end}
		}
		st.arg++
		st.left--
		st.pos = end + 2
		st.need = 0
	}
	return nil
}

// header checks a line "<kind><decimal>\r\n" at b[pos:] and returns the
// number and the position after the line.
func (s *Scanner) header(b []byte, pos int, kind byte, limit int) (n, next int, err error) {
	if pos >= len(b) {
		return 0, 0, errShort
	}
	if b[pos] != kind {
		return 0, 0, s.syntax(pos, fmt.Sprintf("expected %s, got %s", quoteByte(kind), quoteByte(b[pos])))
	}
	i := pos + 1
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if i > pos+1 && b[pos+1] == '0' {
			return 0, 0, s.syntax(pos+1, "length with a leading zero")
		}
		n = n*10 + int(b[i]-'0')
		if n > limit {
			return 0, 0, s.syntax(pos+1, fmt.Sprintf("length over the limit of %d", limit))
		}
	}
	switch {
	case i == len(b):
		return 0, 0, errShort
	case i == pos+1:
		return 0, 0, s.syntax(i, "expected a length, got "+quoteByte(b[i]))
	case b[i] != '\r':
		return 0, 0, s.syntax(i, "expected a digit or CR, got "+quoteByte(b[i]))
	case i+1 == len(b):
		return 0, 0, errShort
	case b[i+1] != '\n':
		return 0, 0, s.syntax(i+1, "expected LF after CR, got "+quoteByte(b[i+1]))
	}
	return n, i + 2, nil
}

// syntax returns a SyntaxError at position pos of the current command.
func (s *Scanner) syntax(pos int, msg string) error {
	return &SyntaxError{Offset: s.off + int64(pos), Msg: msg}
}

// quoteByte shows a byte in an error message: 'x' when printable, else
// its escape ('\r', '\x00').
func quoteByte(c byte) string {
	switch {
	case c == '\r':
		return `'\r'`
	case c == '\n':
		return `'\n'`
	case c >= ' ' && c < 0x7f:
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf(`'\x%02x'`, c)
}
