package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/retwis/retwis/internal/resp"
)

// Sizes of the buffers of a load: memory stays flat whatever the size of
// the input, plus the largest single command.
const (
	inputBuffer   = 1 << 20   // bytes read from the input at a time
	chunkSize     = 256 << 10 // bytes of commands written to a connection at a time
	replyBuffer   = 256 << 10 // bytes of replies read at a time
	maxBatch      = 1 << 14   // commands in one chunk, at most
	maxInFlight   = 1 << 20   // commands sent and not yet answered, per connection
	maxShownError = 100       // error replies written; later ones are only counted
)

// ErrBrokeOff is wrapped by the error of a load that stopped before every
// command got its reply: Report.Acknowledged says where to resume.
var ErrBrokeOff = errors.New("load broke off")

// Options configure a load.
type Options struct {
	// URL is the Redis to load: redis://[user:pass@]host:port[/db],
	// rediss://… for TLS, unix://[user:pass@]/path.sock[?db=N], read as
	// rueidis reads it. A cluster node is found to be one, and the load
	// spread over the cluster's masters; a cluster's seed nodes may be
	// several (redis://a:7000,b:7000), the first that answers is used.
	URL string
	// Cluster routes each command to the master of the hash slot of its
	// second element even if the server does not say it is a cluster.
	Cluster bool
	// Skip is how many commands of the input to check but not send, to
	// resume a load that broke off.
	Skip int64
	// Timeout bounds how long the server may take no data, or send no
	// reply after the last command, and each step of connecting; zero
	// waits forever.
	Timeout time.Duration
	// Errors receives the error replies, one line each with the number of
	// the command they answer, from the load's goroutines but never two at
	// once; nil discards them.
	Errors io.Writer
	// Progress, when it is a terminal, shows a line of the commands and
	// bytes sent and their rates, redrawn a few times a second and erased
	// at the end; otherwise, or when nil, nothing is written to it.
	Progress io.Writer
}

// Run sends the commands read from in to the Redis of opts and waits for
// all their replies. It fails when the input is bad (the commands before
// the bad bytes are sent), when any command got an error reply, or when
// the load broke off (ErrBrokeOff), worst first; the Report says what was
// done either way. Cancelling ctx breaks the load off.
func Run(ctx context.Context, opts Options, in io.Reader) (Report, error) {
	target, err := parseTarget(opts.URL)
	if err != nil {
		return Report{}, err
	}
	prog := newProgress(opts.Progress)
	errOut := opts.Errors
	if errOut == nil {
		errOut = io.Discard
	}
	l, err := newLoader(ctx, opts, target, &errorLog{out: errOut, prog: prog})
	if err != nil {
		return Report{}, err
	}
	defer l.close()
	stopAbort := context.AfterFunc(ctx, func() { l.abort(fmt.Errorf("interrupted: %w", context.Cause(ctx))) })
	start := time.Now()
	stopProgress := prog.start(l)
	inputErr := l.feed(in)
	l.finish()
	stopAbort() // a load that is over cannot be interrupted any more
	stopProgress()
	rep := l.report(time.Since(start))
	return rep, l.outcome(rep, inputErr)
}

// feed reads commands from in and hands each to its pipe until the input
// ends or is bad, or a pipe fails. It returns the input's error, naming
// the command at fault.
func (l *loader) feed(in io.Reader) error {
	sc := resp.NewScanner(bufio.NewReaderSize(flushingReader{in, l}, inputBuffer))
	var n, bytes int64 // published to the progress line in batches
	defer func() { l.publish(n, bytes) }()
	for !l.failed.Load() {
		cmd, err := sc.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if l.failed.Load() || errors.Is(err, errPipeFailed) {
				return nil // a flush before the read found a failed pipe, which the outcome explains
			}
			return fmt.Errorf("input: %w (command %d: it and all after it were not sent)", err, l.placed+1)
		}
		if l.placed < l.opts.Skip {
			l.placed++
			continue
		}
		if err := l.pipeFor(cmd).add(l.placed+1, cmd.Raw); err != nil {
			return nil // the pipe failed; the outcome says why
		}
		l.placed++
		n, bytes = n+1, bytes+int64(len(cmd.Raw))
		if n == 1024 {
			l.publish(n, bytes)
			n, bytes = 0, 0
		}
	}
	return nil
}

// flushingReader reads the input for the Scanner, first sending the
// commands already scanned: whenever the Scanner needs more input, which
// may take a while on a pipe, nothing waits in a half-filled chunk.
type flushingReader struct {
	r io.Reader
	l *loader
}

func (f flushingReader) Read(p []byte) (int, error) {
	if err := f.l.flushAll(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}
