package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxErrorText bounds the text kept of an error reply: enough for any
// message Redis writes, not a whole script's worth.
const maxErrorText = 4096

// Reply describes one reply without keeping its contents: a loader only
// needs to count replies, show the errors and spot its final sentinel.
type Reply struct {
	// Kind is the RESP type byte of the reply: '+' simple string, '-'
	// error, ':' integer, '$' bulk string, '*' array; with RESP3 also '_'
	// null, '#' boolean, ',' double, '(' big number, '=' verbatim string,
	// '!' bulk error, '%' map, '~' set, and '>' for an out-of-band push,
	// which answers no command.
	Kind byte
	// Null reports a null bulk string or array ($-1, *-1) or RESP3 null.
	Null bool
	// Err is the text of an error reply.
	Err string
	// Sentinel reports a bulk string equal to the sentinel given to
	// ReadReply.
	Sentinel bool
}

// IsError reports whether the reply is an error ('-' or '!').
func (r Reply) IsError() bool { return r.Kind == '-' || r.Kind == '!' }

// ProtocolError reports a reply stream that is not RESP: the connection
// cannot be trusted any more.
type ProtocolError struct{ Msg string }

// Error says what was wrong with the reply.
func (e *ProtocolError) Error() string { return "bad reply from the server: " + e.Msg }

// frame is an aggregate whose elements are being read.
type frame struct {
	left int  // elements still to read; -1 for a streamed aggregate, which ends with '.'
	attr bool // an attribute: metadata before an element, not an element itself
}

// ReadReply reads one whole reply, however deeply nested, and skips its
// contents except for the text of an error and the comparison of a bulk
// string with sentinel. It reads every RESP2 and RESP3 type, including
// attributes (read and dropped) and streamed strings and aggregates.
func ReadReply(r *bufio.Reader, sentinel []byte) (Reply, error) {
	var rep Reply
	var frames [8]frame
	stack := frames[:0]
	for started := false; ; started = true {
		line, err := readLine(r)
		if err != nil {
			return rep, midReply(err, started)
		}
		top := len(stack) == 0 && line[0] != '|'
		if top {
			rep.Kind = line[0]
		}
		done, err := readElement(r, line, top, &rep, &stack, sentinel)
		if err != nil {
			return rep, midReply(err, true)
		}
		if done && completed(&stack) {
			return rep, nil
		}
	}
}

// ReadSimple reads the run of simple replies, status strings ('+') and
// integers (':'), that r's buffer begins with, and returns how many it
// read. It reads nothing from r's source and allocates nothing: the
// replies of a bulk load (+OK, :1) are thus counted in runs, a buffer at
// a time. It stops before a reply of another kind, one that is not
// wholly buffered or one that is malformed, all of which ReadReply reads.
func ReadSimple(r *bufio.Reader) int {
	b, _ := r.Peek(r.Buffered())
	n, pos := 0, 0
	for pos < len(b) && (b[pos] == '+' || b[pos] == ':') {
		end := pos + 5
		if end > len(b) || string(b[pos:end]) != "+OK\r\n" {
			i := bytes.IndexByte(b[pos:], '\n')
			if i < 2 || b[pos+i-1] != '\r' {
				break // not wholly buffered, or malformed
			}
			end = pos + i + 1
		}
		n, pos = n+1, end
	}
	_, _ = r.Discard(pos) // no more than is buffered: cannot fail
	return n
}

// midReply turns the end of the stream inside a reply into
// io.ErrUnexpectedEOF: a plain io.EOF means that the server closed the
// connection between two replies.
func midReply(err error, started bool) error {
	if started && err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readElement handles one element whose header line is line. It reports
// whether the element is complete; an aggregate with elements pushes a
// frame instead.
func readElement(r *bufio.Reader, line []byte, top bool, rep *Reply, stack *[]frame, sentinel []byte) (bool, error) {
	kind, arg := line[0], line[1:]
	switch kind {
	case '+', ':', '#', ',', '(':
		return true, nil
	case '_':
		rep.Null = rep.Null || top
		return true, nil
	case '-':
		if top {
			rep.Err = string(arg[:min(len(arg), maxErrorText)])
		}
		return true, nil
	case '$', '=', '!':
		return true, readBulk(r, kind, arg, top, rep, sentinel)
	case '*', '~', '>', '%', '|':
		if string(arg) == "?" {
			*stack = append(*stack, frame{left: -1})
			return false, nil
		}
		n, err := parseLength(arg)
		if err != nil || n < 0 {
			rep.Null = rep.Null || top
			return true, err
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		if n == 0 {
			return kind != '|', nil // an empty attribute annotates what follows
		}
		*stack = append(*stack, frame{left: n, attr: kind == '|'})
		return false, nil
	case '.':
		if len(*stack) == 0 || (*stack)[len(*stack)-1].left >= 0 {
			return false, &ProtocolError{"'.' outside a streamed aggregate"}
		}
		*stack = (*stack)[:len(*stack)-1]
		return true, nil
	}
	return false, &ProtocolError{fmt.Sprintf("unknown type %s", quoteByte(kind))}
}

// completed records that an element is complete in the innermost
// aggregate, and so on outwards for the aggregates it completes. It
// reports whether the whole reply is complete.
func completed(stack *[]frame) bool {
	for len(*stack) > 0 {
		f := &(*stack)[len(*stack)-1]
		if f.left < 0 {
			return false
		}
		if f.left--; f.left > 0 {
			return false
		}
		attr := f.attr
		*stack = (*stack)[:len(*stack)-1]
		if attr {
			return false // the element it annotates comes next
		}
	}
	return true
}

// readBulk reads the body of a bulk string, verbatim string or bulk error
// whose length is arg. Bodies are skipped, never held, so a reply of any
// size costs no memory.
func readBulk(r *bufio.Reader, kind byte, arg []byte, top bool, rep *Reply, sentinel []byte) error {
	if string(arg) == "?" {
		return skipStreamedString(r)
	}
	n, err := parseLength(arg)
	if err != nil || n < 0 {
		rep.Null = rep.Null || top
		return err
	}
	switch {
	case top && kind == '!':
		text := make([]byte, min(n, maxErrorText))
		if _, err := io.ReadFull(r, text); err != nil {
			return err
		}
		rep.Err = string(text)
		return skipBody(r, n-len(text))
	case top && kind == '$' && len(sentinel) > 0 && n == len(sentinel):
		var small [64]byte
		body := small[:0]
		if n > len(small) {
			body = make([]byte, 0, n)
		}
		body = body[:n]
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		rep.Sentinel = bytes.Equal(body, sentinel)
		return skipBody(r, 0)
	}
	return skipBody(r, n)
}

// skipBody skips n bytes and the CRLF after them.
func skipBody(r *bufio.Reader, n int) error {
	if _, err := r.Discard(n); err != nil {
		return err
	}
	crlf, err := r.Peek(2)
	if err != nil {
		return err
	}
	if crlf[0] != '\r' || crlf[1] != '\n' {
		return &ProtocolError{"bulk string not followed by CRLF"}
	}
	_, _ = r.Discard(2)
	return nil
}

// skipStreamedString skips the chunks of a streamed string ($?), up to
// the empty chunk that ends it.
func skipStreamedString(r *bufio.Reader) error {
	for {
		line, err := readLine(r)
		if err != nil {
			return err
		}
		if line[0] != ';' {
			return &ProtocolError{fmt.Sprintf("expected a chunk of a streamed string, got %s", quoteByte(line[0]))}
		}
		n, err := parseLength(line[1:])
		if err != nil {
			return err
		}
		if n < 0 {
			return &ProtocolError{"negative chunk length"}
		}
		if n == 0 {
			return nil
		}
		if err := skipBody(r, n); err != nil {
			return err
		}
	}
}

// readLine reads a line ending in CRLF and returns it without the CRLF; it
// is valid until the next read from r. A line longer than r's buffer
// (a long simple string or error) is returned in full in a new slice.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, &ProtocolError{fmt.Sprintf("bad line %q", line)}
	}
	return line[:len(line)-2], nil
}

// parseLength parses the length of a bulk string or aggregate: a decimal
// number, or -1 for null.
func parseLength(b []byte) (int, error) {
	if string(b) == "-1" {
		return -1, nil
	}
	if len(b) == 0 || len(b) > 10 {
		return 0, &ProtocolError{fmt.Sprintf("bad length %q", b)}
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, &ProtocolError{fmt.Sprintf("bad length %q", b)}
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
