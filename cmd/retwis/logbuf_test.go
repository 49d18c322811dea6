package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// TestBufferLog: with a flush interval, lines reach stderr together,
// in order, and all of them once the log stops; an interval of 0 is
// stderr itself.
func TestBufferLog(t *testing.T) {
	t.Parallel()
	var stderr syncbuf.Buffer
	out, stop := bufferLog(&stderr, time.Hour)
	var want bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(out, "line %d\n", i)
		fmt.Fprintf(&want, "line %d\n", i)
	}
	if got := stderr.String(); len(got) >= want.Len() {
		t.Errorf("before the flush, stderr has all %d bytes; want them waiting", len(got))
	}
	stop()
	if got := stderr.String(); got != want.String() {
		t.Errorf("after stop, stderr has %d bytes; want the %d written, in order", len(got), want.Len())
	}
	if direct, _ := bufferLog(&stderr, 0); direct != &stderr {
		t.Errorf("--log-flush 0: the log writes to %T, not stderr", direct)
	}
}

// TestBufferLogFlushes: a line waits no longer than about the flush
// interval, without the log stopping.
func TestBufferLogFlushes(t *testing.T) {
	t.Parallel()
	var stderr syncbuf.Buffer
	out, stop := bufferLog(&stderr, 10*time.Millisecond)
	defer stop()
	fmt.Fprintln(out, "request")
	deadline := time.Now().Add(5 * time.Second)
	for stderr.String() != "request\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s, stderr has %q; want the line flushed every 10 ms", stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
}
