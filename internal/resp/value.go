package resp

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// maxDepth bounds the nesting ReadValue follows: set-up replies are
// shallow, and a bound keeps a hostile server from exhausting the stack.
const maxDepth = 32

// Error is an error reply, as ReadValue returns it.
type Error string

// Error returns the text of the error reply, e.g. "WRONGTYPE Operation…".
func (e Error) Error() string { return string(e) }

// ReadValue reads one reply and returns its value: a string for simple,
// bulk and verbatim strings, doubles and big numbers; an int64; a bool;
// nil for null; []any for arrays, sets, and maps (keys and values
// alternating, as RESP2 sends them). An error reply is returned as an
// Error. It keeps the whole reply in memory, so it is meant for the small
// replies of set-up commands (AUTH, INFO, CLUSTER SLOTS); a loader counts
// replies with ReadReply.
func ReadValue(r *bufio.Reader) (any, error) { return readValue(r, 0) }

func readValue(r *bufio.Reader, depth int) (any, error) {
	if depth > maxDepth {
		return nil, &ProtocolError{"reply nested too deeply"}
	}
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	kind, arg := line[0], string(line[1:])
	switch kind {
	case '+', ',', '(':
		return arg, nil
	case '-':
		return nil, Error(arg)
	case ':':
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return nil, &ProtocolError{fmt.Sprintf("bad integer %q", arg)}
		}
		return n, nil
	case '_':
		return nil, nil
	case '#':
		return arg == "t", nil
	case '$', '=', '!':
		return readBulkValue(r, kind, line[1:])
	case '*', '~', '>', '%':
		return readAggregate(r, kind, line[1:], depth)
	}
	return nil, &ProtocolError{fmt.Sprintf("unexpected type %s", quoteByte(kind))}
}

func readBulkValue(r *bufio.Reader, kind byte, arg []byte) (any, error) {
	n, err := parseLength(arg)
	if err != nil || n < 0 {
		return nil, err
	}
	b := make([]byte, n+2)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return nil, &ProtocolError{"bulk string not followed by CRLF"}
	}
	if kind == '!' {
		return nil, Error(b[:n])
	}
	return string(b[:n]), nil
}

func readAggregate(r *bufio.Reader, kind byte, arg []byte, depth int) (any, error) {
	n, err := parseLength(arg)
	if err != nil || n < 0 {
		return nil, err
	}
	if kind == '%' {
		n *= 2
	}
	vs := make([]any, 0, min(n, 1024))
	for range n {
		v, err := readValue(r, depth+1)
		if e, ok := err.(Error); ok {
			v, err = e, nil // an error element (in EXEC's reply) is a value like any other
		}
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}
