package main

// retwis lock is a distributed flock(1): it runs a command while holding a
// Redlock lock over independent Redis masters, so that a cron job set up on
// many machines runs on one at a time.
//
// --wait 0 does not wait for a holder to release the lock, but it makes
// one more try after 100–200 ms (see redlockOptions).
//
// The lock is taken with --ttl and extended by that much every ttl/3 while
// the command runs (redlock's Lock.Hold). A failed extension is tried
// again as long as the lock is still valid; once its validity has ended
// without an extension, or a majority of the servers no longer hold it,
// the lock is lost and the command is stopped: SIGTERM to its process
// group, SIGKILL after --grace. The command may thus run up to --grace past the
// end of the lock, at the same time as a new holder; a resource that must
// never see two holders should check the fencing token the command gets in
// its environment.
//
// --max-extensions bounds how long a command can hold the lock: about
// ttl × (1 + N/3), as the lock is extended every ttl/3. The default
// (defaultLockMaxExtensions) is about an hour at the default --ttl, as
// Redlock's liveness rule asks: a command that hangs is stopped in the
// end, rather than keeping the lock, and the job off every other machine,
// until someone kills it; a healthy one that runs longer must say so
// with a larger N, or a negative one for no limit.
//
// One URL that is a Redis Cluster is not one instance: the lock's keys
// are spread over the cluster's masters (redlock.NewOnCluster), so that
// it outlives the failover of one of them.
//
// The command runs in a process group of its own, so that stopping it
// reaches the processes it started too; SIGINT and SIGTERM that retwis lock
// receives are forwarded to that group, and retwis lock stays until the
// command has exited, to release the lock. Being in a group of its own, a
// command started from an interactive shell is not in the terminal's
// foreground: it cannot read from the terminal.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/redlock"
)

// Exit statuses of retwis lock that are not the command's own. The first
// and the last are those of sysexits.h, which cron wrappers know.
const (
	exitUnavailable = 69 // EX_UNAVAILABLE: too many servers down for a majority
	exitNotAcquired = 75 // EX_TEMPFAIL: held by someone else, or --wait ran out
	exitLost        = 76 // the lock was lost while the command ran; it was stopped
)

// exitError makes run (main.go) exit with status code. A non-nil err is
// printed as any error is; a nil one exits silently, as when a command
// passes on the status of a program that has already said why it failed.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e exitError) Unwrap() error { return e.err }

// lockUsage heads the help of `retwis lock`; the flags follow it.
const lockUsage = `Usage: retwis lock [flags] NAME -- COMMAND [ARGS...]

Run COMMAND while holding the distributed lock NAME (Redlock: a majority of
the --servers must agree; a single URL of a Redis Cluster spreads the lock
over its masters). The lock is extended while the command runs and
released when it exits; if it is lost, the command is stopped. The command
gets the lock's fencing token, which grows with each holder, in the variable
named by --token-env, and NAME in RETWIS_LOCK_NAME.

Exit status: the command's own, or 128+N if signal N killed it, or
  75  the lock was not acquired: held by someone else, or --wait ran out
  76  the lock was lost while the command ran; the command was stopped
  69  too many servers refused connections to make a majority
   2  bad usage
   1  other errors, e.g. COMMAND not found
A command's own status can be one of these too: if the difference matters,
keep the command's statuses clear of them.

Flags:
`

// defaultLockMaxExtensions is the default --max-extensions: a command
// holds the lock for about an hour at the default --ttl of 10 s (10 s ×
// (1 + 1080/3) = 3,610 s), longer than a cron job should take and short
// enough that a hung one frees the job for the other machines the same
// hour.
const defaultLockMaxExtensions = 1080

// lockConfig is the configuration of `retwis lock`.
type lockConfig struct {
	servers       string        // comma-separated URLs of the Redis masters
	urls          []string      // servers, parsed
	ttl           time.Duration // validity of the lock and of each extension
	wait          time.Duration // how long to wait for a holder to release; 0 does not wait
	grace         time.Duration // between SIGTERM and SIGKILL when the lock is lost
	maxExtensions int           // negative: no limit
	tokenEnv      string        // environment variable of the fencing token
	name          string        // the lock's name: its key on every server
	command       []string      // the program and its arguments
}

func (c *lockConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.servers, "servers", "redis://127.0.0.1:6379", envHelp(
		"comma-separated `URLs` of independent Redis masters (redis://, rediss://, unix://), "+
			"or one of a Redis Cluster, whose masters then hold the lock",
		"RETWIS_LOCK_SERVERS", "REDIS_URL"))
	fs.DurationVar(&c.ttl, "ttl", 10*time.Second, envHelp(
		"the lock expires this `long` after its holder stops extending it; it is extended every ttl/3", "RETWIS_LOCK_TTL"))
	fs.DurationVar(&c.wait, "wait", 0, envHelp(
		"wait this `long` for the lock to be free; 0 does not wait for a holder", "RETWIS_LOCK_WAIT"))
	fs.DurationVar(&c.grace, "grace", 5*time.Second, envHelp(
		"when the lock is lost, give the command this `long` after SIGTERM before SIGKILL", "RETWIS_LOCK_GRACE"))
	fs.IntVar(&c.maxExtensions, "max-extensions", defaultLockMaxExtensions, envHelp(
		"extend the lock at most `N` times, every ttl/3, then stop the command when it expires: it runs at most "+
			"about ttl × (1 + N/3), an hour with the defaults; negative: no limit, and a hung command keeps the lock",
		"RETWIS_LOCK_MAX_EXTENSIONS"))
	fs.StringVar(&c.tokenEnv, "token-env", "RETWIS_LOCK_TOKEN", envHelp(
		"pass the fencing token to the command in this environment `variable`", "RETWIS_LOCK_TOKEN_ENV"))
}

func runLock(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg lockConfig
	fs := newFlagSet("lock", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), lockUsage)
		fs.PrintDefaults()
	}
	cfg.register(fs)
	if err := parseLockArgs(fs, args, &cfg); err != nil {
		return err
	}
	return lockAndRun(ctx, cfg, os.Stdin, stdout, stderr)
}

// parseLockArgs parses the flags, then NAME -- COMMAND [ARGS...]. The --
// is required: without it, a flag put after NAME would be taken for the
// command.
func parseLockArgs(fs *flag.FlagSet, args []string, cfg *lockConfig) error {
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) < 3 || rest[1] != "--" || rest[0] == "" {
		return usageError(fs, "want NAME -- COMMAND [ARGS...] after the flags, got %q", rest)
	}
	cfg.name, cfg.command = rest[0], rest[2:]
	urls, err := redlock.ParseServers(cfg.servers)
	cfg.urls = urls
	switch {
	case err != nil:
		return usageError(fs, "--servers: %v", err)
	case cfg.ttl <= 0:
		return usageError(fs, "--ttl must be positive")
	case cfg.wait < 0 || cfg.grace < 0:
		return usageError(fs, "--wait and --grace cannot be negative")
	case cfg.tokenEnv == "" || strings.ContainsAny(cfg.tokenEnv, "=\x00"):
		return usageError(fs, "--token-env: %q is not a variable name", cfg.tokenEnv)
	}
	return nil
}

// redlockOptions returns the client options for cfg. redlock takes a
// zero MaxExtensions (and a zero Retries) for "the default": keepLock
// keeps --max-extensions 0 itself.
func (c *lockConfig) redlockOptions() redlock.Options {
	opts := redlock.Options{Retries: -1, MaxExtensions: c.maxExtensions} // Retries: until --wait ends
	if c.maxExtensions < 0 {
		opts.MaxExtensions = -1
	}
	if c.wait == 0 {
		// Retries cannot be zero: the least is one more try after a random
		// delay, which also keeps a split vote between processes started at
		// the same moment (each took some servers, none a majority) from
		// leaving the lock to none of them.
		opts.Retries = 1
	}
	return opts
}

// lockAndRun takes the lock, runs the command under it and releases it.
// Its error carries the exit status of the usage (exitError). stderr is
// written to while the command runs: unless it is an *os.File, which the
// command gets as it is, it must be safe for concurrent use.
func lockAndRun(ctx context.Context, cfg lockConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	// A command that cannot run should not take the lock from others first.
	if _, err := exec.LookPath(cfg.command[0]); err != nil {
		return err
	}
	client, closeClient, err := lockClient(cfg)
	if err != nil {
		return err
	}
	defer closeClient()
	// Signals are caught from now on, so that they are not lost between the
	// lock and the start of the command; main's context only says that one
	// came, not which.
	sigs := forwardedSignals()
	defer signal.Stop(sigs)
	l, err := acquireLock(ctx, client, cfg, sigs)
	if err != nil {
		return err
	}
	// From here the command decides when it ends: an interruption is
	// forwarded to it, and the lock is kept and released whatever happens.
	ctx = context.WithoutCancel(ctx)
	defer releaseLock(ctx, l, stderr)
	cmd := lockCommand(cfg, l, stdin, stdout, stderr)
	if err := cmd.Start(); err != nil {
		return err
	}
	err = keepLock(ctx, l, cfg, func(ctx context.Context) error {
		return superviseCommand(ctx, cmd, cfg, sigs, stderr)
	})
	if errors.Is(err, redlock.ErrLost) {
		return exitError{code: exitLost} // superviseCommand said why
	}
	return commandResult(cmd, err)
}

// lockClient returns the Redlock client of cfg's servers and what closes
// it. The servers are independent masters, connected lazily, but for a
// single URL that answers as a Redis Cluster: a lock's keys are then
// spread over its masters.
func lockClient(cfg lockConfig) (*redlock.Client, func(), error) {
	if cl := clusterAt(cfg.urls); cl != nil {
		client, err := redlock.NewOnCluster(cl, redlock.DefaultClusterKeys, cfg.redlockOptions())
		return client, cl.Close, err
	}
	client, err := redlock.New(cfg.urls, cfg.redlockOptions())
	if err != nil {
		return nil, nil, err
	}
	return client, client.Close, nil
}

// clusterAt returns a client of the Redis Cluster that urls name, or nil
// when they are several, or the one names a single server, or nothing
// that answers within a second (redlock.New then says so).
func clusterAt(urls []string) rueidis.Client {
	if len(urls) != 1 {
		return nil
	}
	opt, err := rueidis.ParseURL(urls[0])
	if err != nil {
		return nil
	}
	opt.DisableCache = true
	opt.Dialer.Timeout = time.Second
	cl, err := rueidis.NewClient(opt)
	if err != nil {
		return nil
	}
	if cl.Mode() != rueidis.ClientModeCluster {
		cl.Close()
		return nil
	}
	return cl
}

// acquireLock takes the lock within --wait and turns failures into the exit
// statuses of the usage.
func acquireLock(ctx context.Context, client *redlock.Client, cfg lockConfig, sigs <-chan os.Signal) (*redlock.Lock, error) {
	waitCtx := ctx
	if cfg.wait > 0 {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, cfg.wait)
		defer cancel()
	}
	l, err := client.Lock(waitCtx, cfg.name, cfg.ttl)
	switch {
	case err == nil:
		return l, nil
	case ctx.Err() != nil: // interrupted, not --wait running out
		return nil, exitError{interruptStatus(sigs), fmt.Errorf("interrupted while waiting for lock %q", cfg.name)}
	case errors.Is(err, redlock.ErrQuorum):
		return nil, exitError{exitUnavailable, fmt.Errorf("lock %q: %w", cfg.name, redlock.ErrQuorum)}
	case errors.Is(err, redlock.ErrNotAcquired) && cfg.wait > 0:
		return nil, exitError{exitNotAcquired, fmt.Errorf("lock %q not acquired within %s: held by someone else", cfg.name, cfg.wait)}
	case errors.Is(err, redlock.ErrNotAcquired):
		return nil, exitError{exitNotAcquired, fmt.Errorf("lock %q not acquired: held by someone else", cfg.name)}
	}
	return nil, fmt.Errorf("lock %q: %w", cfg.name, err)
}

// releaseLock unlocks l, or says that it will expire by itself.
func releaseLock(ctx context.Context, l *redlock.Lock, stderr io.Writer) {
	if err := l.Unlock(ctx); err != nil {
		fmt.Fprintf(stderr, "retwis lock: release lock %q: %v; it expires by itself\n", l.Name(), err)
	}
}
