package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store/bulk"
)

// genDefaultUntil ends the generated posting period at a fixed time, so
// that a seed always gives the same output; --until moves it.
var genDefaultUntil = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func runGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o dataset.GenerateOptions
	var out, until, pass string
	fs := newFlagSet("gen", stderr)
	fs.IntVar(&o.Users, "users", 1000, "`number` of users (user1, user2, …)")
	fs.IntVar(&o.AvgFollows, "follows", 20, "average `number` of accounts a user follows")
	fs.IntVar(&o.Posts, "posts", 10_000, "total `number` of posts")
	fs.Uint64Var(&o.Seed, "seed", 1, "random `seed`: the same seed gives the same output")
	fs.DurationVar(&o.Span, "span", 30*24*time.Hour, "posts are spread over this `long`…")
	fs.StringVar(&until, "until", genDefaultUntil.Format(time.RFC3339), "…up to this `time` (RFC 3339, or \"now\")")
	fs.StringVar(&pass, "password", "retwispass", "`password` of every generated user")
	registerTimelines(fs, &o.Timelines)
	fs.StringVar(&out, "out", "-", "output `file` (- for standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if o.Until, err = parseUntil(until); err != nil {
		return err
	}
	if o.Span <= 0 {
		return errors.New("--span must be positive")
	}
	if err := checkTimelines(o.Timelines); err != nil {
		return err
	}
	o.PasswordHash = dataset.SeededHash(pass, o.Seed)
	w, err := openOutput(out, stdout)
	if err != nil {
		return err
	}
	start := time.Now()
	o.Progress = func(stage string, done, total int) {
		fmt.Fprintf(stderr, "gen: %-9s %d/%d (%s)\n", stage, done, total, time.Since(start).Round(time.Millisecond))
	}
	rw := resp.NewWriter(w.Writer)
	stats, err := dataset.Generate(ctx, bulk.NewRESPWriter(rw), o)
	if err = w.finish(err); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	fmt.Fprintf(stderr, "gen: %d users, %d follows (most followed: %d), %d posts (%d of them boosts), %d favourites, %d timeline entries (%d more archived): %d commands in %s\n",
		stats.Users, stats.Follows, stats.MaxFollowers, stats.Posts, stats.Boosts, stats.Favourites, stats.TimelineEntries, stats.ArchivedEntries,
		rw.Count(), time.Since(start).Round(time.Millisecond))
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

// output is where gen and import write: standard output, or a file that
// appears under its name only once it is complete.
type output struct {
	*bufio.Writer
	file *os.File // nil for standard output
	name string   // the final name of file
}

// openOutput opens name for writing (- is standard output) behind a large
// buffer. A file is written under a temporary name in the same directory
// and renamed into place by finish, so that a failed or interrupted run
// never leaves a partial file that looks complete.
func openOutput(name string, stdout io.Writer) (*output, error) {
	if name == "-" {
		return &output{Writer: bufio.NewWriterSize(stdout, 1<<20)}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &output{Writer: bufio.NewWriterSize(f, 1<<20), file: f, name: name}, nil
}

// finish completes the output after a run that ended with err: on
// success it flushes, and moves a file into place; on failure it removes
// the file.
func (o *output) finish(err error) error {
	if err == nil {
		err = o.Flush()
	}
	if o.file == nil {
		return err
	}
	if err == nil {
		err = o.file.Sync()
	}
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.file.Name(), o.name)
	}
	if err != nil {
		os.Remove(o.file.Name())
	}
	return err
}
