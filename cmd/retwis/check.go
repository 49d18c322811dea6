package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/check"
)

// checkConfig is the configuration of `retwis check`.
type checkConfig struct {
	redisURL string
	repair   bool
	kinds    string
	restart  bool
	settle   time.Duration
	sizes    int // users sampled for the memory report; 0: none
	media    mediaConfig
}

func (c *checkConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.redisURL, "redis", "", envHelp("the database's Redis `URL`", "REDIS_URL"))
	fs.BoolVar(&c.repair, "repair", false, "fix what is found")
	fs.StringVar(&c.kinds, "kinds", "", "comma-separated `list` of the kinds of index to check (default all: "+strings.Join(check.Kinds(), ", ")+
		", and "+mediaKind+" when the media's storage is given)")
	fs.BoolVar(&c.restart, "restart", false, "start from the beginning rather than where an interrupted check stopped")
	fs.DurationVar(&c.settle, "settle", time.Second, "how long a problem must last to count (writes under way are not damage)")
	fs.IntVar(&c.sizes, "sizes", 1000, "report the memory of the timelines of this many `users`, sampled (0: none)")
	c.media.registerStorage(fs, "the `directory` of the media's files (a server's --media-dir): check them against their records too")
}

// errProblems is the failure of a check that found problems it did not
// fix.
var errProblems = errors.New("problems found; run with --repair to fix them")

// runCheck verifies every derived index of the database against its
// source of truth, with SCAN on every master, and the media's records
// against their files when given their storage, and reports what is
// wrong by kind, with counts and examples; with --repair it fixes it. Safe on
// a live database. Interrupted, it resumes where it stopped when run
// again. It fails if it found problems it did not fix.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg checkConfig
	fs := newFlagSet("check", stderr)
	cfg.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	opts := check.Options{Repair: cfg.repair, Scope: "cli", Restart: cfg.restart, Settle: cfg.settle}
	for k := range strings.SplitSeq(cfg.kinds, ",") {
		if k = strings.TrimSpace(k); k == "" || k == mediaKind {
			continue
		}
		if !slices.Contains(check.Kinds(), k) {
			return usageError(fs, "--kinds: no kind %q (there are %s, %s)", k, strings.Join(check.Kinds(), ", "), mediaKind)
		}
		opts.Kinds = append(opts.Kinds, k)
	}
	hasMedia, askedMedia := cfg.media.dir != "" || cfg.media.s3.Endpoint != "", slices.Contains(strings.Split(cfg.kinds, ","), mediaKind)
	switch {
	case askedMedia && !hasMedia:
		return usageError(fs, "--kinds %s needs the media's storage: --media-dir or --media-s3", mediaKind)
	case cfg.redisURL == "":
		return usageError(fs, "--redis is needed")
	case cfg.settle < 0:
		return usageError(fs, "--settle cannot be negative")
	case cfg.sizes < 0:
		return usageError(fs, "--sizes cannot be negative")
	}
	st, err := openStore(cfg.redisURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	var rep check.Report
	if cfg.kinds == "" || len(opts.Kinds) > 0 {
		progress := newProgress(stderr, start)
		opts.Progress = progress.show
		rep, err = check.Run(ctx, st, opts)
		progress.end()
		printCheck(stdout, rep, cfg.repair, time.Since(start))
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("interrupted; run it again to go on where it stopped")
	case err != nil:
		return err
	}
	if hasMedia && (cfg.kinds == "" || askedMedia) {
		problems, err := checkMedia(ctx, st, cfg.media, cfg.repair, stdout)
		if err != nil {
			return err
		}
		rep.Problems = append(rep.Problems, problems...)
	}
	if cfg.sizes > 0 {
		sizes, err := check.MeasureSizes(ctx, st, cfg.sizes)
		if err != nil {
			return err
		}
		printSizes(stdout, sizes)
	}
	for _, p := range rep.Problems {
		if p.Repaired < p.Count {
			return errProblems
		}
	}
	return nil
}

// printCheck writes what a check found.
func printCheck(w io.Writer, rep check.Report, repair bool, took time.Duration) {
	fmt.Fprintf(w, "checked %d keys in %s (%.0f keys/s)\n", rep.Keys, took.Round(time.Millisecond), float64(rep.Keys)/took.Seconds())
	printProblems(w, rep.Problems, repair)
}

// printProblems writes the problems a check found, by kind, with their
// examples.
func printProblems(w io.Writer, problems []check.Problem, repair bool) {
	if len(problems) == 0 {
		fmt.Fprintln(w, "no problems found")
	}
	for _, p := range problems {
		fixed := ""
		if repair {
			fixed = fmt.Sprintf(" (repaired %d)", p.Repaired)
		}
		fmt.Fprintf(w, "%s: %s: %d%s\n", p.Kind, p.What, p.Count, fixed)
		for _, e := range p.Examples {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
}

// printSizes writes the memory report of the timelines of a sample of
// users.
func printSizes(w io.Writer, s check.Sizes) {
	if s.Users == 0 {
		return
	}
	bytes := func(d check.Distribution) string {
		return fmt.Sprintf("mean %s, p50 %s, p90 %s, p99 %s, max %s",
			size(d.Mean), size(d.P50), size(d.P90), size(d.P99), size(d.Max))
	}
	count := func(d check.Distribution) string {
		return fmt.Sprintf("mean %d, p50 %d, p90 %d, p99 %d, max %d", d.Mean, d.P50, d.P90, d.P99, d.Max)
	}
	fmt.Fprintf(w, "memory per user, %d users sampled (MEMORY USAGE):\n", s.Users)
	fmt.Fprintf(w, "  home timeline, list and archive: %s\n", bytes(s.HomeBytes))
	fmt.Fprintf(w, "    post ids: %s (most: user %d)\n", count(s.HomeIDs), s.LongestHome)
	fmt.Fprintf(w, "    of them in the archive: %s\n", count(s.ArchiveIDs))
	fmt.Fprintf(w, "  own posts (the profile, never trimmed): %s\n", bytes(s.OwnBytes))
	fmt.Fprintf(w, "    post ids: %s\n", count(s.OwnIDs))
}

// size writes n bytes in B, KB or MB (of 1,000).
func size(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// progress shows how far a check has got: on a terminal, one line
// rewritten at most ten times a second; elsewhere, a line every ten
// seconds.
type progress struct {
	w        io.Writer
	terminal bool
	start    time.Time
	last     time.Time
	shown    bool
}

// newProgress returns the progress display of a check begun at start,
// written to w.
func newProgress(w io.Writer, start time.Time) *progress {
	f, ok := w.(*os.File)
	terminal := false
	if ok {
		fi, err := f.Stat()
		terminal = err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	return &progress{w: w, terminal: terminal, start: start}
}

// show shows p, if it is time to.
func (pr *progress) show(p check.Progress) {
	every, end := 10*time.Second, "\n"
	if pr.terminal {
		every, end = 100*time.Millisecond, ""
	}
	if time.Since(pr.last) < every {
		return
	}
	pr.last = time.Now()
	elapsed := time.Since(pr.start)
	line := fmt.Sprintf("checking %s: %d keys, %d problems, %.0f keys/s", p.Kind, p.Keys, p.Problems, float64(p.Keys)/elapsed.Seconds())
	if pr.terminal {
		line = "\r\x1b[K" + line
	}
	fmt.Fprint(pr.w, line+end)
	pr.shown = true
}

// end ends the terminal's progress line.
func (pr *progress) end() {
	if pr.terminal && pr.shown {
		fmt.Fprint(pr.w, "\r\x1b[K")
	}
}
