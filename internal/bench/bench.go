// Package bench measures a running retwis server: it seeds a synthetic
// network into the server's database, drives each scenario (home,
// profile, global timeline, tag pages, threads, posting with and without
// mentions and tags, a mix) next to a static baseline (a
// file of the server's) and /healthz measured in the same run, and
// measures growth curves, written as SVG charts. It is the engine of
// `retwis bench`.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/store"
)

// Options say what to measure.
type Options struct {
	URL         string        // the retwis server to load
	Seed        bool          // seed a synthetic network first (into an empty database)
	Users       int           // … of this many users
	Posts       int           // … and posts
	Follows     int           // … and average follows per user
	HomeCap     int           // … with home timeline lists this long, as the server's --home-cap
	Archive     int           // … and this many older entries in each timeline's archive
	Password    string        // password of the seeded users, user1 … userN
	Connections int           // concurrent connections, each its own user
	Duration    time.Duration // per scenario
	Scenarios   []string      // names, from Scenarios()
	Curves      string        // directory for growth curves (SVG); empty skips them
	MaxAudience int           // largest follower count of the delivery curve
}

// Scenarios returns the names of the scenarios, in the order they run.
func Scenarios() []string {
	names := make([]string, len(scenarioList))
	for i, sc := range scenarioList {
		names[i] = sc.name
	}
	return names
}

// Check refuses options that cannot work, before anything is measured:
// a run that fails after minutes of measuring wastes them.
func (o *Options) Check() error {
	switch {
	case o.URL == "":
		return errors.New("the server's URL is required")
	case o.Connections < 1 || o.Duration <= 0:
		return errors.New("the number of connections and the duration must be positive")
	case o.Seed && (o.Users < 2 || o.Posts < 0 || o.Follows < 0):
		return errors.New("seeding needs at least 2 users, and no negative posts or follows")
	case o.Seed && o.HomeCap < 10:
		return errors.New("the home timeline cap must be at least 10")
	case o.Seed && o.Archive < 0:
		return errors.New("the archive depth cannot be negative")
	}
	for _, name := range o.Scenarios {
		if !slices.Contains(Scenarios(), name) {
			return fmt.Errorf("unknown scenario %q (the scenarios are %s)", name, strings.Join(Scenarios(), ", "))
		}
	}
	if o.Curves != "" {
		return checkWritable(o.Curves)
	}
	return nil
}

// checkWritable makes sure dir exists (creating it) and takes files.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("curves directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".write-test-*")
	if err != nil {
		return fmt.Errorf("curves directory: %w", err)
	}
	f.Close()
	return os.Remove(filepath.Join(dir, filepath.Base(f.Name())))
}

// Run measures the server at opts.URL, whose database st is, and prints
// the report to out.
func Run(ctx context.Context, st *store.Store, opts Options, out io.Writer) error {
	if err := opts.Check(); err != nil {
		return err
	}
	b := &bench{opts: opts, st: st, out: out, words: dataset.Words(),
		userZipfs: make([]*rand.Zipf, opts.Connections), postZipfs: make([]*rand.Zipf, opts.Connections)}
	if opts.Seed {
		if err := b.seed(ctx); err != nil {
			return err
		}
	}
	if err := b.scenarios(ctx); err != nil {
		return err
	}
	if opts.Curves != "" {
		return b.growthCurves(ctx)
	}
	return nil
}

// bench runs benchmarks against one retwis server.
type bench struct {
	opts      Options
	st        *store.Store
	out       io.Writer
	cookies   []string     // one logged-in user per connection
	tokens    []string     // and their API tokens, for the api- scenarios
	words     []string     // of generated posts, and their tags
	userZipfs []*rand.Zipf // per connection, for popularUser
	postZipfs []*rand.Zipf // per connection, for popularPost
}

func (b *bench) printf(format string, args ...any) { fmt.Fprintf(b.out, format, args...) }
