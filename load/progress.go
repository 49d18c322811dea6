package load

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progress shows, when its writer is a terminal, a line of the commands
// and bytes sent and their rates, redrawn a few times a second.
type progress struct {
	w     io.Writer
	term  bool
	mu    sync.Mutex
	shown bool // a progress line is on the screen
}

func newProgress(w io.Writer) *progress { return &progress{w: w, term: isTerminal(w)} }

// isTerminal reports whether w is a terminal, where a line can be redrawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// start redraws the progress line of l four times a second until the
// returned function is called, which erases it.
func (p *progress) start(l *loader) (stop func()) {
	if !p.term {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		last, lastCmds, lastBytes := time.Now(), int64(0), int64(0)
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				cmds, bytes := l.sentCmds.Load(), l.sentBytes.Load()
				replies, errs := l.replies()
				dt := now.Sub(last).Seconds()
				p.show(fmt.Sprintf("%s commands (%s/s), %s (%s/s), %s replies, %d errors",
					count(float64(cmds)), count(float64(cmds-lastCmds)/dt),
					megabytes(bytes), megabytes(int64(float64(bytes-lastBytes)/dt)), count(float64(replies)), errs))
				last, lastCmds, lastBytes = now, cmds, bytes
			}
		}
	})
	return func() { close(done); wg.Wait(); p.clear() }
}

func (p *progress) show(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.shown = true
}

// clear erases the progress line, so that other output starts on a clean
// line; the next tick draws it again.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// count formats a count or rate briefly: 950, 12.3k, 1.52M.
func count(x float64) string {
	switch {
	case x < 1e3:
		return fmt.Sprintf("%.0f", x)
	case x < 1e6:
		return fmt.Sprintf("%.1fk", x/1e3)
	}
	return fmt.Sprintf("%.2fM", x/1e6)
}
