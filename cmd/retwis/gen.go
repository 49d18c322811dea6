package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store"
)

// genDefaultUntil ends the generated posting period at a fixed time, so
// that a seed always gives the same output; --until moves it.
var genDefaultUntil = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o store.GenerateOptions
	var out, until string
	fs := newFlagSet("gen", stderr)
	fs.IntVar(&o.Users, "users", 1000, "`number` of users (user1, user2, …)")
	fs.IntVar(&o.AvgFollows, "follows", 20, "average `number` of accounts a user follows")
	fs.IntVar(&o.Posts, "posts", 10_000, "total `number` of posts")
	fs.Uint64Var(&o.Seed, "seed", 1, "random `seed`: the same seed gives the same output")
	fs.DurationVar(&o.Span, "span", 30*24*time.Hour, "posts are spread over this `long`…")
	fs.StringVar(&until, "until", genDefaultUntil.Format(time.RFC3339), "…up to this `time` (RFC 3339, or \"now\")")
	fs.StringVar(&o.Password, "password", "retwispass", "`password` of every generated user")
	fs.IntVar(&o.HomeCap, "home-cap", 800, "entries per home timeline, as the server's --home-cap")
	fs.StringVar(&out, "out", "-", "output `file` (- for standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if o.Until, err = parseUntil(until); err != nil {
		return err
	}
	if o.Span <= 0 || o.HomeCap < 10 {
		return errors.New("--span must be positive and --home-cap at least 10")
	}
	w, closeOut, err := openOutput(out, stdout)
	if err != nil {
		return err
	}
	start := time.Now()
	o.Progress = func(stage string, done, total int) {
		fmt.Fprintf(stderr, "gen: %-9s %d/%d (%s)\n", stage, done, total, time.Since(start).Round(time.Millisecond))
	}
	rw := resp.NewWriter(w)
	stats, err := store.Generate(rw, o)
	if err == nil {
		err = closeOut()
	}
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	fmt.Fprintf(stderr, "gen: %d users, %d follows (most followed: %d), %d posts, %d timeline entries: %d commands in %s\n",
		stats.Users, stats.Follows, stats.MaxFollowers, stats.Posts, stats.TimelineEntries, rw.Count(), time.Since(start).Round(time.Millisecond))
	return nil
}

func parseUntil(s string) (time.Time, error) {
	if s == "now" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return t, fmt.Errorf("--until: want a time like 2026-01-01T00:00:00Z, or now: %w", err)
	}
	return t, nil
}

// openOutput opens name for writing (- is stdout) behind a large buffer;
// closeOut flushes and closes it.
func openOutput(name string, stdout io.Writer) (*bufio.Writer, func() error, error) {
	if name == "-" {
		w := bufio.NewWriterSize(stdout, 1<<20)
		return w, w.Flush, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	return w, func() error { return errors.Join(w.Flush(), f.Close()) }, nil
}
