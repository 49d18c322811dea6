package main

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/resp"
	"github.com/retwis/retwis/internal/store/bulk"
)

// maxSkipReports is how many skipped lines import prints; the rest are
// only counted.
const maxSkipReports = 100

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var graph, users, posts, out, usersFormat, postsFormat, pass string
	o := dataset.ImportOptions{Now: time.Now()}
	fs := newFlagSet("import", stderr)
	fs.StringVar(&graph, "graph", "", "follow graph `file`: \"follower followee\" per line, # comments (.gz read as gzip)")
	fs.StringVar(&users, "users", "", "optional users `file`: CSV (id,username[,created]) or JSON Lines")
	fs.StringVar(&posts, "posts", "", "optional posts `file`, oldest first: CSV (user,time,body) or JSON Lines")
	fs.StringVar(&usersFormat, "users-format", "", "csv or jsonl (default: from the file name)")
	fs.StringVar(&postsFormat, "posts-format", "", "csv or jsonl (default: from the file name)")
	fs.StringVar(&pass, "password", "retwispass", "`password` of every imported user")
	registerTimelines(fs, &o.Timelines)
	fs.StringVar(&out, "out", "-", "output `file` (- for standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if graph == "" {
		return errors.New("--graph is required")
	}
	if err := checkTimelines(o.Timelines); err != nil {
		return err
	}
	hash, err := password.Hash(pass, password.Default)
	if err != nil {
		return err
	}
	o.PasswordHash = hash
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	open := func(name string, dst *io.Reader, format *string) error {
		if name == "" {
			return nil
		}
		r, c, err := openInput(name)
		if err != nil {
			return err
		}
		closers = append(closers, c)
		*dst = r
		if format != nil && *format == "" {
			*format = formatOf(name)
		}
		return nil
	}
	for _, f := range []struct {
		name   string
		dst    *io.Reader
		format *string
	}{{graph, &o.Graph, nil}, {users, &o.Users, &usersFormat}, {posts, &o.Posts, &postsFormat}} {
		if err := open(f.name, f.dst, f.format); err != nil {
			return err
		}
	}
	o.UsersFormat, o.PostsFormat = usersFormat, postsFormat
	return importTo(ctx, o, out, stdout, stderr)
}

func importTo(ctx context.Context, o dataset.ImportOptions, out string, stdout, stderr io.Writer) error {
	w, err := openOutput(out, stdout)
	if err != nil {
		return err
	}
	reported := 0
	o.Skip = func(file string, line int, reason string) {
		if reported++; reported <= maxSkipReports {
			fmt.Fprintf(stderr, "import: %s line %d: %s\n", file, line, reason)
		}
	}
	start := time.Now()
	stats, err := dataset.Import(ctx, bulk.NewRESPWriter(resp.NewWriter(w.Writer)), o)
	if err = w.finish(err); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if reported > maxSkipReports {
		fmt.Fprintf(stderr, "import: … and %d more skipped lines\n", reported-maxSkipReports)
	}
	fmt.Fprintf(stderr, "import: %d users, %d follows, %d posts, %d timeline entries (%d more archived) imported; %d lines skipped (%s)\n",
		stats.Users, stats.Follows, stats.Posts, stats.TimelineEntries, stats.ArchivedEntries, stats.Skipped, time.Since(start).Round(time.Millisecond))
	return nil
}

// openInput opens a file for reading, decompressing .gz files.
func openInput(name string) (io.Reader, io.Closer, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(name, ".gz") {
		return f, f, nil
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return z, f, nil
}

// formatOf guesses a records file's format from its name.
func formatOf(name string) string {
	name = strings.TrimSuffix(name, ".gz")
	if strings.HasSuffix(name, ".csv") {
		return "csv"
	}
	return "jsonl"
}
