package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// errUsage reports bad flags; the flag package has already said why.
var errUsage = errors.New("usage")

// newFlagSet returns a flag set for a subcommand that reports errors to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("retwis "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// env returns the value of an environment variable, or def when unset.
func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// envInt returns an environment variable as an int, or def when unset or
// not a number.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// envDuration returns an environment variable as a duration ("720h"), or
// def when unset or malformed.
func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

// envHelp appends the name of a flag's environment variable to its help.
func envHelp(help, name string) string { return fmt.Sprintf("%s (env %s)", help, name) }

// parseFlags parses args: -h gives flag.ErrHelp, bad flags errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return errUsage
	}
	return nil
}
