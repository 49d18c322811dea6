package load

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/retwis/retwis/internal/resp"
)

// loader is one load: its pipes, one per server or per
// cluster master, and what has been read of the input.
type loader struct {
	opts   Options
	pipes  []*pipe
	slots  []uint16 // index of the pipe serving each hash slot; nil for a single server
	errs   *errorLog
	failed atomic.Bool // a pipe failed: stop reading the input
	placed int64       // commands of the input handled (sent or skipped), by the main goroutine

	sentCmds, sentBytes atomic.Int64 // for the progress line
}

// newLoader connects to the server of target, or to every master of its
// cluster, and starts the pipes.
func newLoader(ctx context.Context, opts Options, target redisTarget, errs *errorLog) (*loader, error) {
	sentinel := make([]byte, 20)
	rand.Read(sentinel)
	first, seed, err := target.dialSeed(ctx, opts.Timeout)
	if err != nil {
		return nil, err
	}
	l := &loader{opts: opts, errs: errs}
	onFail := func() { l.failed.Store(true) }
	if !opts.Cluster && !isCluster(first, opts.Timeout) {
		l.pipes = []*pipe{newPipe(seed, first, opts.Timeout, errs, sentinel, onFail)}
		l.start()
		return l, nil
	}
	defer first.Close() // only asked for the slot map
	if target.db != 0 {
		return nil, fmt.Errorf("%s: a cluster has only database 0", target.display)
	}
	host, _, _ := net.SplitHostPort(seed)
	m, err := readSlotMap(first, host, opts.Timeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target.display, err)
	}
	for _, addr := range m.addrs {
		conn, err := target.dial(ctx, "tcp", addr, opts.Timeout)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("cluster master %s: %w", addr, err)
		}
		l.pipes = append(l.pipes, newPipe(addr, conn, opts.Timeout, errs, sentinel, onFail))
	}
	l.slots = m.owner
	l.start()
	return l, nil
}

// start starts the pipes.
func (l *loader) start() {
	for _, p := range l.pipes {
		p.start()
	}
}

// pipeFor returns the pipe of a command: on a cluster, that of the master
// serving the slot of its second element, taken as its key.
func (l *loader) pipeFor(cmd *resp.Command) *pipe {
	if l.slots == nil {
		return l.pipes[0]
	}
	key, ok := cmd.Key()
	if !ok {
		return l.pipes[0]
	}
	return l.pipes[l.slots[resp.Slot(key)]]
}

// flushAll hands every pending chunk to its writer.
func (l *loader) flushAll() error {
	for _, p := range l.pipes {
		if err := p.flush(); err != nil {
			return err
		}
	}
	return nil
}

// publish adds to the counts of the progress line.
func (l *loader) publish(cmds, bytes int64) {
	l.sentCmds.Add(cmds)
	l.sentBytes.Add(bytes)
}

// replies returns the replies received so far, and how many were errors.
func (l *loader) replies() (replies, errs int64) {
	for _, p := range l.pipes {
		replies += p.replies.Load()
		errs += p.errors.Load()
	}
	return replies, errs
}

// finish ends every pipe with the final ECHO and waits for its reply, or
// for the pipe to fail.
func (l *loader) finish() {
	for _, p := range l.pipes {
		p.end()
	}
	for _, p := range l.pipes {
		p.wg.Wait()
	}
}

// abort stops every pipe at once (when the context of the load ends).
func (l *loader) abort(err error) {
	for _, p := range l.pipes {
		p.fail(err)
	}
}

func (l *loader) close() {
	for _, p := range l.pipes {
		p.conn.Close()
	}
}

// acknowledged returns N such that commands 1 to N of the input all got
// a reply (or were skipped): a load that broke off resumes with Options.Skip = N.
// Commands after N may have run, or not.
func (l *loader) acknowledged() int64 {
	acked := l.placed
	for _, p := range l.pipes {
		if n := p.firstUnanswered(); n > 0 {
			acked = min(acked, n-1)
		}
	}
	return acked
}

// report returns the counts of a load that is over.
func (l *loader) report(elapsed time.Duration) Report {
	replies, errs := l.replies()
	l.errs.finish()
	return Report{
		Servers: len(l.pipes), Sent: l.sentCmds.Load(), Bytes: l.sentBytes.Load(),
		Replies: replies, Errors: errs, Skipped: min(l.placed, l.opts.Skip),
		Acknowledged: l.acknowledged(), Duration: elapsed,
	}
}

// outcome returns what went wrong with a load that is over, worst first: a
// load that broke off, bad input, failed commands.
func (l *loader) outcome(rep Report, inputErr error) error {
	for _, p := range l.pipes {
		if err := p.failure(); err != nil {
			return errors.Join(fmt.Errorf("%w: %w", ErrBrokeOff, err), inputErr)
		}
	}
	if inputErr != nil {
		return inputErr
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d of %d commands failed", rep.Errors, rep.Replies)
	}
	return nil
}
