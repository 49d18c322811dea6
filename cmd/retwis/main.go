// Command retwis is a Twitter clone that keeps all its data in Redis.
//
// Usage:
//
//	retwis serve [flags]          run the web server
//	retwis bench [flags]          seed a synthetic network and measure a server
//	retwis load [flags] [FILE|-]  send Redis commands (RESP) as fast as the server takes them
//	retwis gen [flags]            write a synthetic network as Redis commands
//	retwis import [flags]         convert real data into Redis commands
//	retwis lock [flags]           run a command while holding a distributed lock
//	retwis check [flags]          verify (and repair) every derived index
//	retwis spam [flags]           list new accounts that post very much
//	retwis admin ACTION           moderate: suspend, moderators, delete posts, audit, rules
//	retwis media migrate [flags]  copy the media's files from a directory to S3
//	retwis help [command]         show the commands, or the flags of one
//
// Every flag can also be set through the environment variable named in
// its help text.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// command is one subcommand of retwis.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"serve", "run the web server", runServe},
	{"bench", "seed a synthetic network and measure a running server", runBench},
	{"load", "send a stream of Redis commands (RESP) as fast as the server takes them", runLoad},
	{"gen", "write a synthetic social network as Redis commands (RESP)", runGen},
	{"import", "convert a real follow graph, users and posts into Redis commands (RESP)", runImport},
	{"lock", "run a command while holding a distributed lock (Redlock)", runLock},
	{"check", "verify every derived index against its source of truth, and repair it", runCheck},
	{"spam", "list new accounts that post very much (the operator's spam view)", runSpam},
	{"media", "copy the media's files from a directory to another storage (migrate)", runMedia},
	{"admin", "moderate: suspend accounts, grant the moderator role, delete posts, read the audit log, set the rules", runAdmin},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // from now on a second Ctrl-C kills at once
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" { // retwis help serve: the flags of serve
		args = []string{args[1], "-h"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return 0
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "retwis: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := commands[i].run(ctx, args[1:], stdout, stderr); err != nil {
		var exit exitError
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		case errors.As(err, &exit): // a status of its own, e.g. retwis lock's
			if exit.err != nil {
				fmt.Fprintf(stderr, "retwis %s: %v\n", args[0], exit.err)
			}
			return exit.code
		}
		fmt.Fprintf(stderr, "retwis %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "retwis: a Twitter clone with Redis as its only database\n\nUsage: retwis <command> [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'retwis help <command>' (or 'retwis <command> -h') for the flags of a command.")
}
