package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/retwis/retwis/redlock"
)

// forwardedSignals catches SIGINT and SIGTERM for forwarding to the
// command; signal.Stop ends it. While it is registered, a second signal
// does not kill retwis lock (main lets it after the first), which must
// stay to release the lock.
func forwardedSignals() chan os.Signal {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	return sigs
}

// interruptStatus returns 128+N for the signal N that interrupted, as a
// shell would, or 1 when the context was cancelled otherwise.
func interruptStatus(sigs <-chan os.Signal) int {
	select {
	case s := <-sigs:
		if n, ok := s.(syscall.Signal); ok {
			return 128 + int(n)
		}
	default:
	}
	return 1
}

// lockCommand prepares the command of cfg to run under l.
func lockCommand(cfg lockConfig, l *redlock.Lock, stdin io.Reader, stdout, stderr io.Writer) *exec.Cmd {
	cmd := exec.Command(cfg.command[0], cfg.command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.Env = append(os.Environ(),
		cfg.tokenEnv+"="+strconv.FormatInt(l.Token(), 10),
		"RETWIS_LOCK_NAME="+cfg.name)
	cmd.SysProcAttr = commandProcAttr()
	return cmd
}

// keepLock runs work while keeping l (redlock's Hold), or with
// --max-extensions 0, without extending it: work's context then ends when
// the lock expires. Either way the cause of the end wraps redlock.ErrLost,
// and so does the error returned.
func keepLock(ctx context.Context, l *redlock.Lock, cfg lockConfig, work func(context.Context) error) error {
	if cfg.maxExtensions != 0 {
		return l.Hold(ctx, cfg.ttl, work)
	}
	expired := fmt.Errorf("%w: it expired after 0 extensions, the --max-extensions", redlock.ErrLost)
	wctx, cancel := context.WithDeadlineCause(ctx, l.Until(), expired)
	defer cancel()
	err := work(wctx)
	if context.Cause(wctx) == expired {
		return errors.Join(expired, err)
	}
	return err
}

// superviseCommand waits for the started cmd, forwarding signals to its
// process group, and stops it when ctx ends (the lock is lost): SIGTERM,
// then SIGKILL after --grace. It returns the error of cmd.Wait.
func superviseCommand(ctx context.Context, cmd *exec.Cmd, cfg lockConfig, sigs <-chan os.Signal, stderr io.Writer) error {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	group := -cmd.Process.Pid
	lost := ctx.Done()        // nil once seen
	var kill <-chan time.Time // the end of the grace period, once lost
	for {
		select {
		case err := <-exited:
			if kill != nil {
				syscall.Kill(group, syscall.SIGKILL) // what is left of it ran under the lock too
			}
			return err
		case s := <-sigs:
			syscall.Kill(group, s.(syscall.Signal))
		case <-kill:
			syscall.Kill(group, syscall.SIGKILL)
		case <-lost:
			lost = nil
			fmt.Fprintf(stderr, "retwis lock: lost lock %q (%v): stopping the command (SIGTERM now, SIGKILL after %s)\n",
				cfg.name, context.Cause(ctx), cfg.grace)
			syscall.Kill(group, syscall.SIGTERM)
			kill = time.After(cfg.grace)
		}
	}
}

// commandResult turns how the command ended into retwis lock's result:
// its exit status, or 128+N if signal N killed it.
func commandResult(cmd *exec.Cmd, waitErr error) error {
	ps := cmd.ProcessState
	if ps == nil {
		return fmt.Errorf("%s: %w", cmd.Args[0], waitErr)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitError{128 + int(ws.Signal()), fmt.Errorf("%s: killed by signal %d (%v)", cmd.Args[0], int(ws.Signal()), ws.Signal())}
	}
	if code := ps.ExitCode(); code != 0 {
		return exitError{code: code} // the command has said why, if it wanted to
	}
	if waitErr != nil { // exited well, but its output could not be copied
		return fmt.Errorf("%s: %w", cmd.Args[0], waitErr)
	}
	return nil
}
