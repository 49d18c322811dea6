package main

import (
	"context"
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

// superviseLocked keeps the lock while the started cmd runs: it extends the
// lock, forwards signals to the command's process group, and stops the
// command when the lock is lost. It returns when the command has exited,
// with whether the lock was lost and the error of cmd.Wait.
func superviseLocked(ctx context.Context, cmd *exec.Cmd, l *redlock.Lock, cfg lockConfig, sigs <-chan os.Signal, stderr io.Writer) (lost bool, waitErr error) {
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	group := -cmd.Process.Pid
	k := lockKeeper{lock: l, ttl: cfg.ttl, max: cfg.maxExtensions}
	extend := time.NewTimer(cfg.ttl / 3)
	defer extend.Stop()
	var kill <-chan time.Time // the end of the grace period, once lost
	for {
		select {
		case <-exited:
			if lost {
				syscall.Kill(group, syscall.SIGKILL) // what is left of it ran under the lock too
			}
			return lost, waitErr
		case s := <-sigs:
			syscall.Kill(group, s.(syscall.Signal))
		case <-kill:
			syscall.Kill(group, syscall.SIGKILL)
		case <-extend.C:
			next, err := k.keep(ctx)
			if err == nil {
				extend.Reset(next)
				continue
			}
			lost = true
			fmt.Fprintf(stderr, "retwis lock: lost lock %q (%v): stopping the command (SIGTERM now, SIGKILL after %s)\n", l.Name(), err, cfg.grace)
			syscall.Kill(group, syscall.SIGTERM)
			kill = time.After(cfg.grace)
		}
	}
}

// lockKeeper extends a lock, at most max times when max is not negative.
type lockKeeper struct {
	lock     *redlock.Lock
	ttl      time.Duration
	max      int
	extended int // successful extensions so far
}

// keep extends the lock and returns when to call it again, or an error
// when the lock is lost: its validity ended without an extension.
func (k *lockKeeper) keep(ctx context.Context) (time.Duration, error) {
	if k.max >= 0 && k.extended >= k.max {
		if left := time.Until(k.lock.Until()); left > 0 {
			return left, nil // let it run out
		}
		return 0, fmt.Errorf("expired after %d extensions, the --max-extensions", k.extended)
	}
	err := k.lock.Extend(ctx, k.ttl)
	if err == nil {
		k.extended++
		return k.ttl / 3, nil
	}
	// The lock stays valid until Until even if this extension failed (a
	// majority slow for a moment): try again until then. Past Until,
	// Extend fails at once with ErrLost.
	if left := time.Until(k.lock.Until()); left > 0 {
		return min(left, k.ttl/10), nil
	}
	return 0, fmt.Errorf("not extended on a majority of the servers within its validity: %w", err)
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
