package main

// retwis load is redis-cli --pipe done better: it streams a file of RESP
// commands to Redis, one goroutine writing while another reads the
// replies, and ends with an ECHO of random bytes whose reply tells that
// every reply is in. It also knows which command each reply answers, so
// that it can name the commands that failed, route commands to the right
// master of a cluster, and say how far a broken load got.
//
// Routing on a cluster uses the second element of each command (argv[1])
// as its key, which is right for SET, HSET, LPUSH, INCR and most
// commands that a bulk load sends; commands with no second element (PING)
// go to the first master. Live resharding is not supported: a MOVED or
// ASK reply counts as an error.

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
	maxShownError = 100       // error replies printed; later ones are only counted
)

// loadConfig is the configuration of `retwis load`.
type loadConfig struct {
	redisURL string        // where to load
	cluster  bool          // route by hash slot even if the server does not say it is a cluster
	skip     int64         // commands of the input to check but not send
	timeout  time.Duration // give up when the server takes no data, or sends no reply at the end, this long
	input    string        // file name; "-" is stdin
}

func (c *loadConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.redisURL, "redis", env("REDIS_URL", "redis://127.0.0.1:6379"), envHelp(
		"Redis `URL`: redis://[user:pass@]host:port[/db], rediss://… for TLS, unix:///path.sock", "REDIS_URL"))
	fs.BoolVar(&c.cluster, "cluster", false,
		"route each command to the master of the hash slot of its second element (argv[1]), taken as its key; "+
			"automatic when the server is a cluster node")
	fs.Int64Var(&c.skip, "skip", 0, "check but do not send the first `N` commands, to resume a load that broke off "+
		"(commands after N may have run already: SET, HSET and ZADD repeat harmlessly, but list pushes and INCR apply twice)")
	fs.DurationVar(&c.timeout, "timeout", envDuration("RETWIS_LOAD_TIMEOUT", 30*time.Second), envHelp(
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
	return load(ctx, cfg, in, stdout, stderr)
}

// parseLoadFlags parses flags that may come before or after the one
// optional operand, since `retwis load dump.resp --skip 5` reads
// naturally. It returns the operands.
func parseLoadFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
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

// load sends the commands read from in to the Redis of cfg, prints the
// error replies and the counts to stdout and a summary to stderr. It
// returns an error when any command failed, the input was bad, or the
// load broke off.
func load(ctx context.Context, cfg loadConfig, in io.Reader, stdout, stderr io.Writer) error {
	target, err := parseTarget(cfg.redisURL)
	if err != nil {
		return err
	}
	prog := newProgress(stderr)
	l, err := newLoader(ctx, cfg, target, &errorLog{out: stdout, prog: prog})
	if err != nil {
		return err
	}
	defer l.close()
	stopAbort := context.AfterFunc(ctx, func() { l.abort(fmt.Errorf("interrupted: %w", context.Cause(ctx))) })
	start := time.Now()
	stopProgress := prog.start(l)
	inputErr := l.feed(in)
	l.finish()
	stopAbort() // a load that is over cannot be interrupted any more
	stopProgress()
	return l.report(start, inputErr, stdout, prog)
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
				return nil // a flush before the read found a failed pipe, which report explains
			}
			return fmt.Errorf("input: %w (command %d: it and all after it were not sent)", err, l.placed+1)
		}
		if l.placed < l.cfg.skip {
			l.placed++
			continue
		}
		if err := l.pipeFor(cmd).add(l.placed+1, cmd.Raw); err != nil {
			return nil // the pipe failed; finish reports it
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
