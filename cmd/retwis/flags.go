package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/retwis/retwis"
)

// errUsage reports bad flags; the flag package has already said why.
var errUsage = errors.New("usage")

// newFlagSet returns a flag set for a subcommand that reports errors to stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("retwis "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// envMarker introduces, at the end of a flag's help text, the environment
// variables that set its default (envHelp). The help text is the one
// place that binds a flag to its variables, so what the help says is
// what is read.
const envMarker = " (env "

// envHelp appends to a flag's help the environment variables that set
// its default; the first one set counts.
func envHelp(help string, names ...string) string {
	return help + envMarker + strings.Join(names, " or ") + ")"
}

// envNames returns the environment variables named in a flag's help.
func envNames(usage string) []string {
	i := strings.LastIndex(usage, envMarker)
	if i < 0 || !strings.HasSuffix(usage, ")") {
		return nil
	}
	return strings.Split(usage[i+len(envMarker):len(usage)-1], " or ")
}

// applyEnv sets each flag of fs whose help names an environment variable
// that is set to that variable's value, parsed by the flag itself: a
// malformed value (RETWIS_HOME_CAP=80O) is refused with the variable's
// name rather than replaced by the default.
func applyEnv(fs *flag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		for _, name := range envNames(f.Usage) {
			v, ok := os.LookupEnv(name)
			if !ok {
				continue
			}
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("environment variable %s=%q (for --%s): %v", name, v, f.Name, err))
			}
			return
		}
	})
	return errors.Join(errs...)
}

// parseArgs applies the environment, then parses args: -h gives
// flag.ErrHelp, bad flags or environment variables errUsage.
func parseArgs(fs *flag.FlagSet, args []string) error {
	if err := applyEnv(fs); err != nil {
		fmt.Fprintf(fs.Output(), "%s: %v\n", fs.Name(), err)
		return errUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// parseFlags parses args, which must hold only flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return errUsage
	}
	return nil
}

// usageError says what is wrong with the arguments, as the flag package
// does, and returns errUsage.
func usageError(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	return errUsage
}

// rateFlag is a flag.Value of a rate limit, written as retwis.ParseRate
// reads it ("300/5m", "off").
type rateFlag struct{ r *retwis.Rate }

func (f rateFlag) String() string {
	if f.r == nil {
		return ""
	}
	return f.r.String()
}

func (f rateFlag) Set(s string) error {
	r, err := retwis.ParseRate(s)
	if err != nil {
		return err
	}
	*f.r = r
	return nil
}

// rateVar defines a rate limit flag with its default.
func rateVar(fs *flag.FlagSet, r *retwis.Rate, name string, def retwis.Rate, usage string) {
	*r = def
	fs.Var(rateFlag{r}, name, usage)
}
