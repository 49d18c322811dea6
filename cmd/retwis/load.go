package main

// retwis load streams a file of Redis commands (RESP) into Redis with
// package load, and prints what it did: the error replies and the counts
// on stdout, a summary on stderr, and how to resume a load that broke off.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/retwis/retwis/load"
)

// loadConfig is the configuration of `retwis load`.
type loadConfig struct {
	redisURL string        // where to load
	cluster  bool          // route by hash slot even if the server does not say it is a cluster
	skip     int64         // commands of the input to check but not send
	timeout  time.Duration // give up when the server takes no data, or sends no reply at the end, this long
	input    string        // file name; "-" is stdin
}

// options returns the options of the load of c, which writes the error
// replies to stdout and its progress line to stderr.
func (c *loadConfig) options(stdout, stderr io.Writer) load.Options {
	return load.Options{URL: c.redisURL, Cluster: c.cluster, Skip: c.skip, Timeout: c.timeout, Errors: stdout, Progress: stderr}
}

func (c *loadConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.redisURL, "redis", "redis://127.0.0.1:6379", envHelp(
		"Redis `URL`: redis://[user:pass@]host:port[/db], rediss://… for TLS, unix:///path.sock; "+
			"a cluster's seed nodes may be several, redis://a:7000,b:7000", "REDIS_URL"))
	fs.BoolVar(&c.cluster, "cluster", false,
		"route each command to the master of the hash slot of its second element (argv[1]), taken as its key; "+
			"automatic when the server is a cluster node")
	fs.Int64Var(&c.skip, "skip", 0, "check but do not send the first `N` commands, to resume a load that broke off "+
		"(commands after N may have run already: SET, HSET and ZADD repeat harmlessly, but list pushes and INCR apply twice)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, envHelp(
		"give up when the server takes no data, or sends no reply after the last command, for this `long`; 0 waits forever",
		"RETWIS_LOAD_TIMEOUT"))
}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg loadConfig
	fs := newFlagSet("load", stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: retwis load [flags] [FILE|-]\n\n"+
			"Send FILE (or stdin) of commands in RESP to Redis as fast as it takes them.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	cfg.register(fs)
	operands, err := parseLoadFlags(fs, args)
	if err != nil {
		return err
	}
	if cfg.skip < 0 {
		fmt.Fprintln(stderr, "retwis load: --skip cannot be negative")
		return errUsage
	}
	cfg.input = "-"
	if len(operands) == 1 {
		cfg.input = operands[0]
	}
	in := io.Reader(os.Stdin)
	if cfg.input != "-" {
		f, err := os.Open(cfg.input)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	return runLoadInput(ctx, cfg, in, stdout, stderr)
}

// parseLoadFlags parses flags that may come before or after the one
// optional operand, since `retwis load dump.resp --skip 5` reads
// naturally. It returns the operands.
func parseLoadFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	if err := applyEnv(fs); err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return nil, errUsage
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		operands = append(operands, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(operands) > 1 {
		fmt.Fprintf(fs.Output(), "%s: one input at most, got %q\n", fs.Name(), operands)
		return nil, errUsage
	}
	return operands, nil
}

// runLoadInput sends the commands read from in to the Redis of cfg and
// prints what the load did: the error replies and the counts to stdout,
// a summary to stderr. It returns an error when any command failed, the
// input was bad, or the load broke off, which then says how to resume.
func runLoadInput(ctx context.Context, cfg loadConfig, in io.Reader, stdout, stderr io.Writer) error {
	rep, err := load.Run(ctx, cfg.options(stdout, stderr), in)
	if rep.Servers == 0 {
		return err // it never started
	}
	fmt.Fprintf(stdout, "errors: %d, replies: %d\n", rep.Errors, rep.Replies)
	fmt.Fprintln(stderr, rep)
	switch {
	case errors.Is(err, load.ErrBrokeOff):
		return fmt.Errorf("%w\n%s", err, resumeHint(rep))
	case err == nil && rep.Skipped < cfg.skip:
		fmt.Fprintf(stderr, "note: the input has only %d commands: --skip %d skipped them all\n", rep.Skipped, cfg.skip)
	}
	return err
}

// resumeHint says how far a load that broke off got, and how to resume it.
func resumeHint(rep load.Report) string {
	if rep.Acknowledged == 0 {
		return "no command was acknowledged: load again from the start"
	}
	how := "got a reply"
	if rep.Skipped > 0 {
		how = "got a reply or was skipped"
	}
	return fmt.Sprintf("%d commands acknowledged (every one from 1 to %d %s): resume with --skip %d",
		rep.Acknowledged, rep.Acknowledged, how, rep.Acknowledged)
}
