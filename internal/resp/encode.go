// Package resp speaks the Redis serialization protocol (RESP) at the byte
// level, for bulk loading: encoding commands, scanning a stream of them,
// and reading replies; and the one small request/reply client of the
// module (RoundTrip), for set-up and administration commands.
package resp

import (
	"bufio"
	"strconv"
)

// Commands returns the RESP encoding of cmds, one after the other: a
// pipeline, as `retwis load` reads it.
func Commands(cmds ...[]string) []byte {
	var b []byte
	for _, c := range cmds {
		b = AppendCommand(b, c...)
	}
	return b
}

// AppendCommand appends the RESP encoding of a command (an array of bulk
// strings) to buf and returns the extended buffer. Arguments are binary
// safe: any bytes, including CR, LF and NUL, are sent as they are.
func AppendCommand(buf []byte, args ...string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(args)), 10)
	buf = append(buf, '\r', '\n')
	for _, a := range args {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(a)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, a...)
		buf = append(buf, '\r', '\n')
	}
	return buf
}

// Writer writes commands in RESP to a buffered stream.
type Writer struct {
	w       *bufio.Writer
	scratch []byte
	n       int64 // commands written
}

// NewWriter returns a Writer on w with a large buffer, for throughput.
func NewWriter(w *bufio.Writer) *Writer { return &Writer{w: w} }

// Command writes one command.
func (w *Writer) Command(args ...string) error {
	w.scratch = AppendCommand(w.scratch[:0], args...)
	w.n++
	_, err := w.w.Write(w.scratch)
	return err
}

// CommandInts writes a command whose arguments after the key are
// integers, encoding them without allocating strings: generated home
// timelines hold hundreds of millions of them.
func (w *Writer) CommandInts(name, key string, values []int64) error {
	b := w.scratch[:0]
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(2+len(values)), 10)
	b = append(b, '\r', '\n')
	for _, a := range [2]string{name, key} {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	var digits [20]byte
	for _, v := range values {
		d := strconv.AppendInt(digits[:0], v, 10)
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(d)), 10)
		b = append(b, '\r', '\n')
		b = append(b, d...)
		b = append(b, '\r', '\n')
	}
	w.scratch = b
	w.n++
	_, err := w.w.Write(b)
	return err
}

// Count returns how many commands have been written.
func (w *Writer) Count() int64 { return w.n }

// Flush writes any buffered data to the underlying stream.
func (w *Writer) Flush() error { return w.w.Flush() }
