// Command failoverbench measures what a master's failure costs the users
// of retwis on the cluster topology docs/OPERATIONS.md recommends (three
// masters with two replicas each, min-replicas-to-write 1): for each
// fault (a master killed, frozen, or killed while its replicas lag),
// without an operator and with one who restarts the failed node, it
// starts a new cluster and two `retwis serve` processes, sends them an
// open-loop load (a request every --every whatever became of the
// earlier ones), injects the fault, and reports the share of requests
// served while the fault lasted (until a replica took over) and the time
// to full service (until the takeover or the last failed request, the
// later). --replicas and --spares measure other topologies (such as one
// replica a master and a spare that migrates). scripts/failover.sh runs
// it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "failoverbench:", err)
		os.Exit(1)
	}
}

// run parses the flags, runs every scenario --runs times, logging each
// run to progress, and writes the table of medians and ranges to out.
func run(ctx context.Context, args []string, out, progress io.Writer) error {
	cfg, runs, faults, keep, err := parse(args, progress)
	if err != nil {
		return err
	}
	var scenarios []scenario
	for _, f := range faults {
		scenarios = append(scenarios, scenario{f, false}, scenario{f, true})
	}
	outcomes := map[scenario][]outcome{}
	for i := range runs {
		for _, s := range scenarios {
			dir, err := os.MkdirTemp(cfg.dir, "run")
			if err != nil {
				return err
			}
			o, err := cfg.run(ctx, s, dir)
			if err != nil {
				return fmt.Errorf("%s, run %d (logs in %s): %w", s, i+1, dir, err)
			}
			if !keep {
				os.RemoveAll(dir)
			}
			fmt.Fprintf(progress, "run %d, %s: %d failed before the fault; takeover after %v; served %d of %d (%.0f%%) meanwhile; full service after %s; %d failed after the takeover %v, more than a second after it: %v\n",
				i+1, s, o.before, o.promoted.Round(10*time.Millisecond), o.served, o.requests, 100*o.share(),
				fullString(o.full, cfg.observe), o.after, o.why, o.late)
			outcomes[s] = append(outcomes[s], o)
		}
	}
	writeTable(out, scenarios, outcomes, cfg.observe)
	return nil
}

// parse reads the flags.
func parse(args []string, stderr io.Writer) (cfg config, runs int, faults []string, keep bool, err error) {
	fs := flag.NewFlagSet("failoverbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.retwis, "retwis", "", "the retwis `binary` to run (go build ./cmd/retwis)")
	fs.StringVar(&cfg.dir, "dir", os.TempDir(), "`directory` for the clusters' data and the servers' logs")
	fs.DurationVar(&cfg.nodeTimeout, "node-timeout", time.Second, "the clusters' cluster-node-timeout")
	fs.DurationVar(&cfg.every, "every", 4*time.Millisecond, "send a request this `often`")
	fs.IntVar(&cfg.users, "users", 40, "`number` of users signed up before the load, who send it")
	fs.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "load before each fault")
	fs.DurationVar(&cfg.observe, "observe", 20*time.Second, "load after each fault")
	fs.DurationVar(&cfg.freeze, "freeze", 5*time.Second, "how long a frozen master stays frozen after its replica took over, when nobody helps")
	fs.DurationVar(&cfg.lag, "lag", time.Second, "how long a master's replicas are frozen (fall behind) before it is killed")
	fs.IntVar(&runs, "runs", 3, "runs of each scenario")
	fs.BoolVar(&keep, "keep", false, "keep each run's directory (the nodes' data and logs, the servers' logs)")
	fs.IntVar(&cfg.replicas, "replicas", 2, "`replicas` of each master (min-replicas-to-write is 1)")
	fs.IntVar(&cfg.spares, "spares", 0, "spare `replicas`, which migrate to a master left without one")
	list := fs.String("faults", strings.Join([]string{faultKill, faultFreeze, faultLag}, ","), "comma-separated `faults` to inject: kill, freeze, lag")
	if err := fs.Parse(args); err != nil {
		return cfg, 0, nil, false, err
	}
	if cfg.retwis == "" {
		return cfg, 0, nil, false, fmt.Errorf("--retwis is needed")
	}
	if cfg.replicas < 1 || cfg.spares < 0 || runs < 1 {
		return cfg, 0, nil, false, fmt.Errorf("--replicas and --runs must be at least 1, --spares at least 0")
	}
	if cfg.retwis, err = filepath.Abs(cfg.retwis); err != nil {
		return cfg, 0, nil, false, err
	}
	for f := range strings.SplitSeq(*list, ",") {
		if !slices.Contains([]string{faultKill, faultFreeze, faultLag}, f) {
			return cfg, 0, nil, false, fmt.Errorf("--faults: no fault %q (kill, freeze, lag)", f)
		}
		faults = append(faults, f)
	}
	return cfg, runs, faults, keep, nil
}

// writeTable writes, for each scenario, the medians and ranges of its
// outcomes as a Markdown table.
func writeTable(w io.Writer, scenarios []scenario, outcomes map[scenario][]outcome, observe time.Duration) {
	fmt.Fprintln(w, "| fault | after the takeover | replica took over after | requests served during the fault (median, range) | time to full service (median, range) |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, s := range scenarios {
		outs := outcomes[s]
		promoted := medianRange(outs, func(o outcome) float64 { return o.promoted.Seconds() }, "%.1f s")
		share := medianRange(outs, func(o outcome) float64 { return 100 * o.share() }, "%.0f %%")
		full := medianRange(outs, func(o outcome) float64 {
			if o.full < 0 {
				return observe.Seconds() + 1 // sorts last
			}
			return o.full.Seconds()
		}, "%.1f s")
		full = strings.ReplaceAll(full, fmt.Sprintf("%.1f s", observe.Seconds()+1), "> "+observe.String())
		help := "nobody touches the cluster"
		if s.operator {
			help = "the operator restarts the failed node"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", s.fault, help, promoted, share, full)
	}
}

// medianRange formats the median of f over outs, then its range.
func medianRange(outs []outcome, f func(outcome) float64, format string) string {
	vs := make([]float64, len(outs))
	for i, o := range outs {
		vs[i] = f(o)
	}
	slices.Sort(vs)
	median := vs[len(vs)/2]
	if len(vs)%2 == 0 {
		median = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
	}
	return fmt.Sprintf(format+" ("+format+" – "+format+")", median, vs[0], vs[len(vs)-1])
}

// fullString says when full service came back.
func fullString(full, observe time.Duration) string {
	if full < 0 {
		return "never within " + observe.String()
	}
	return full.Round(10 * time.Millisecond).String()
}
