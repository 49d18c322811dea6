package load

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Report is what a load did.
type Report struct {
	Servers      int           // connections loaded: 1, or the masters of a cluster; 0 if the load never started
	Sent         int64         // commands sent
	Bytes        int64         // bytes of the commands sent
	Replies      int64         // replies received, errors included
	Errors       int64         // error replies
	Skipped      int64         // commands of the input skipped (Options.Skip)
	Acknowledged int64         // commands 1 to Acknowledged of the input all got a reply or were skipped
	Duration     time.Duration // from the first command to the last reply
}

// String sums a report up on one line: the commands and bytes sent, in
// how long, at what rates.
func (r Report) String() string {
	secs := max(r.Duration.Seconds(), 1e-9)
	skip := ""
	if r.Skipped > 0 {
		skip = fmt.Sprintf(" after skipping %d", r.Skipped)
	}
	return fmt.Sprintf("sent %d commands (%s)%s in %s: %.0f commands/s, %s/s",
		r.Sent, megabytes(r.Bytes), skip, r.Duration.Round(time.Millisecond), float64(r.Sent)/secs,
		megabytes(int64(float64(r.Bytes)/secs)))
}

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

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
