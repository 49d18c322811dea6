package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// errorLog prints error replies as they arrive, each with the number of
// the command it answers: the first maxShownError, then only a count, so
// that a load gone wrong does not bury the terminal.
type errorLog struct {
	out    io.Writer
	prog   *progress // its line is cleared before an error is printed
	mu     sync.Mutex
	shown  int
	hidden int64
}

func (e *errorLog) add(num int64, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shown == maxShownError {
		e.hidden++
		return
	}
	e.shown++
	e.prog.clear()
	fmt.Fprintf(e.out, "command %d: %s%s\n", num, text, errorHint(text))
}

// finish says how many errors were not shown.
func (e *errorLog) finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hidden > 0 {
		fmt.Fprintf(e.out, "… and %d more errors, not shown\n", e.hidden)
	}
}

// errorHint explains the errors that come from loading into a cluster
// rather than from the command.
func errorHint(text string) string {
	if strings.HasPrefix(text, "MOVED ") || strings.HasPrefix(text, "ASK ") {
		return " (sent to the wrong master: either the command's key is not its second element, " +
			"or the cluster was resharded during the load, which is not supported)"
	}
	return ""
}

// progress shows, when stderr is a terminal, a line of the commands and
// bytes sent and their rates, redrawn a few times a second; either way it
// prints a summary at the end.
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
// returned function is called.
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
	return func() { close(done); wg.Wait() }
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

// summary prints the totals and average rates of a load.
func (p *progress) summary(elapsed time.Duration, cmds, bytes, skipped int64) {
	p.clear()
	secs := max(elapsed.Seconds(), 1e-9)
	skip := ""
	if skipped > 0 {
		skip = fmt.Sprintf(" after skipping %d", skipped)
	}
	fmt.Fprintf(p.w, "sent %d commands (%s)%s in %s: %.0f commands/s, %s/s\n",
		cmds, megabytes(bytes), skip, elapsed.Round(time.Millisecond), float64(cmds)/secs, megabytes(int64(float64(bytes)/secs)))
}

// note prints a remark about the load.
func (p *progress) note(text string) {
	p.clear()
	fmt.Fprintln(p.w, "note:", text)
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

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
