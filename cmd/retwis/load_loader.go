package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/retwis/retwis/internal/resp"
)

// loader is one run of `retwis load`: its pipes, one per server or per
// cluster master, and what has been read of the input.
type loader struct {
	cfg    loadConfig
	pipes  []*pipe
	slots  []uint16 // index of the pipe serving each hash slot; nil for a single server
	errs   *errorLog
	failed atomic.Bool // a pipe failed: stop reading the input
	placed int64       // commands of the input handled (sent or skipped), by the main goroutine

	sentCmds, sentBytes atomic.Int64 // for the progress line
}

// newLoader connects to the server of target, or to every master of its
// cluster, and starts the pipes.
func newLoader(ctx context.Context, cfg loadConfig, target redisTarget, errs *errorLog) (*loader, error) {
	sentinel := make([]byte, 20)
	rand.Read(sentinel)
	first, err := target.dial(ctx, target.network, target.addr, cfg.timeout)
	if err != nil {
		return nil, err
	}
	l := &loader{cfg: cfg, errs: errs}
	onFail := func() { l.failed.Store(true) }
	if !cfg.cluster && !isCluster(first, cfg.timeout) {
		l.pipes = []*pipe{newPipe(target.addr, first, cfg.timeout, errs, sentinel, onFail)}
		l.start()
		return l, nil
	}
	defer first.Close() // only asked for the slot map
	if target.db != 0 {
		return nil, fmt.Errorf("%s: a cluster has only database 0", target.display)
	}
	host, _, _ := net.SplitHostPort(target.addr)
	m, err := readSlotMap(first, host, cfg.timeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", target.display, err)
	}
	for _, addr := range m.addrs {
		conn, err := target.dial(ctx, "tcp", addr, cfg.timeout)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("cluster master %s: %w", addr, err)
		}
		l.pipes = append(l.pipes, newPipe(addr, conn, cfg.timeout, errs, sentinel, onFail))
	}
	l.slots = m.owner
	l.start()
	return l, nil
}

// start starts the pipes. A load is bound by the servers' CPU, not ours:
// the loader keeps to one processor per pipe, so that on a machine shared
// with Redis it does not take cycles from the server it is feeding
// (measured: a 10M-command load ran up to 10% faster than with every core).
func (l *loader) start() {
	runtime.GOMAXPROCS(max(1, min(runtime.NumCPU(), len(l.pipes))))
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

// abort stops every pipe at once (on Ctrl-C).
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
// a reply (or were skipped): a load that broke off resumes with --skip N.
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

// resumeHint says how far a load that broke off got, and how to resume it.
func (l *loader) resumeHint() string {
	acked := l.acknowledged()
	if acked == 0 {
		return "no command was acknowledged: load again from the start"
	}
	how := "got a reply"
	if l.cfg.skip > 0 {
		how = "got a reply or was skipped"
	}
	return fmt.Sprintf("%d commands acknowledged (every one from 1 to %d %s): resume with --skip %d", acked, acked, how, acked)
}

// report prints the counts and the summary, and returns what went wrong,
// worst first: a load that broke off, bad input, failed commands.
func (l *loader) report(start time.Time, inputErr error, stdout io.Writer, prog *progress) error {
	elapsed := time.Since(start)
	replies, errs := l.replies()
	l.errs.finish()
	fmt.Fprintf(stdout, "errors: %d, replies: %d\n", errs, replies)
	prog.summary(elapsed, l.sentCmds.Load(), l.sentBytes.Load(), l.cfg.skip)
	var broken error
	for _, p := range l.pipes {
		if err := p.failure(); err != nil {
			broken = err
			break
		}
	}
	switch {
	case broken != nil:
		return errors.Join(fmt.Errorf("load broke off: %w\n%s", broken, l.resumeHint()), inputErr)
	case inputErr != nil:
		return inputErr
	case errs > 0:
		return fmt.Errorf("%d of %d commands failed", errs, replies)
	}
	if l.placed < l.cfg.skip {
		prog.note(fmt.Sprintf("the input has only %d commands: --skip %d skipped them all", l.placed, l.cfg.skip))
	}
	return nil
}
