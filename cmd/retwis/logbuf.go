package main

import (
	"bufio"
	"context"
	"io"
	"sync"
	"time"
)

// logBufferSize is how much of the log a server gathers in memory at
// most before it writes it out, whatever --log-flush says.
const logBufferSize = 64 << 10

// bufferedLog is the log's writer under --log-flush: the lines gather
// in memory and go out together, every flush interval or as soon as the
// buffer fills, so that a request adds its line to the buffer and does
// not wait for a write to stderr (often a pipe to journald or a
// container runtime) of its own.
type bufferedLog struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func newBufferedLog(w io.Writer) *bufferedLog {
	return &bufferedLog{w: bufio.NewWriterSize(w, logBufferSize)}
}

// Write adds p, one log line, to the buffer.
func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// Flush writes out what the buffer holds.
func (b *bufferedLog) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// bufferLog returns the writer of a server's log on stderr: stderr
// itself when every flushes each line (zero), else a buffer flushed that
// often, and a function that stops the flushing after a last flush.
func bufferLog(stderr io.Writer, every time.Duration) (io.Writer, func()) {
	if every <= 0 {
		return stderr, func() {}
	}
	buf := newBufferedLog(stderr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				buf.Flush()
				return
			case <-tick.C:
				buf.Flush()
			}
		}
	}()
	return buf, func() { cancel(); <-done }
}
