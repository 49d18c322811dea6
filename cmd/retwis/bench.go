package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/retwis/retwis/internal/store"
)

// benchConfig is the configuration of `retwis bench`.
type benchConfig struct {
	url         string        // the retwis server to load
	redisURL    string        // its Redis, for seeding and inspection
	seed        bool          // seed a synthetic network first
	users       int           // … of this many users
	posts       int           // … and posts
	follows     int           // … and average follows per user
	connections int           // concurrent connections, each its own user
	duration    time.Duration // per scenario
	scenarios   string        // comma-separated
	curves      string        // directory for growth curves (SVG); empty skips them
	password    string        // password of the seeded users
	maxAudience int           // largest follower count of the delivery curve
}

func (c *benchConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", env("RETWIS_URL", "http://127.0.0.1:8080"), envHelp("base `URL` of the retwis server to load", "RETWIS_URL"))
	fs.StringVar(&c.redisURL, "redis", env("REDIS_URL", ""), envHelp("the server's Redis `URL`, for seeding and measuring", "REDIS_URL"))
	fs.BoolVar(&c.seed, "seed", false, "seed a synthetic network first (the database must be empty)")
	fs.IntVar(&c.users, "users", 10_000, "`number` of users to seed")
	fs.IntVar(&c.posts, "posts", 1_000_000, "`number` of posts to seed")
	fs.IntVar(&c.follows, "follows", 50, "average `number` of accounts a seeded user follows")
	fs.IntVar(&c.connections, "connections", 64, "concurrent `connections`, each logged in as a different user")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how `long` to run each scenario")
	fs.StringVar(&c.scenarios, "scenarios", "home,profile,timeline,post,mixed", "comma-separated `list` of scenarios")
	fs.StringVar(&c.curves, "curves", "", "measure growth curves and write their SVG charts into this `directory`")
	fs.StringVar(&c.password, "password", "benchpass1", "`password` of the seeded users (user1, user2, …)")
	fs.IntVar(&c.maxAudience, "max-followers", 1_000_000, "largest follower `count` of the delivery curve (1000, 10000, … up to this)")
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg benchConfig
	fs := newFlagSet("bench", stderr)
	cfg.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if cfg.redisURL == "" {
		return errors.New("--redis is needed (the server's Redis, to seed and to measure)")
	}
	if cfg.connections < 1 || cfg.duration <= 0 {
		return errors.New("--connections and --duration must be positive")
	}
	c, err := store.NewClient(cfg.redisURL)
	if err != nil {
		return err
	}
	st, err := store.New(c, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	b := &bench{cfg: cfg, st: st, out: stdout}
	if cfg.seed {
		if err := b.seed(ctx); err != nil {
			return err
		}
	}
	if err := b.scenarios(ctx); err != nil {
		return err
	}
	if cfg.curves != "" {
		return b.growthCurves(ctx)
	}
	return nil
}

// bench runs benchmarks against one retwis server.
type bench struct {
	cfg     benchConfig
	st      *store.Store
	out     io.Writer
	cookies []string // one logged-in user per connection
}

func (b *bench) printf(format string, args ...any) { fmt.Fprintf(b.out, format, args...) }

func (b *bench) seed(ctx context.Context) error {
	b.printf("seeding %d users, %d posts, %d follows per user on average\n", b.cfg.users, b.cfg.posts, b.cfg.follows)
	start := time.Now()
	mem0, err := b.st.UsedMemory(ctx)
	if err != nil {
		return err
	}
	marks := map[string]int64{}
	stats, err := b.st.Seed(ctx, store.SeedOptions{
		NetworkOptions: store.NetworkOptions{Users: b.cfg.users, Posts: b.cfg.posts, AvgFollows: b.cfg.follows,
			Span: 30 * 24 * time.Hour, Seed: 1},
		Password: b.cfg.password,
		Progress: func(stage string, done, total int) {
			b.printf("  %-9s %d/%d (%s)\n", stage, done, total, time.Since(start).Round(time.Millisecond))
			if done == total {
				marks[stage], _ = b.st.UsedMemory(ctx)
			}
		},
	})
	if err != nil {
		return err
	}
	b.printf("seeded in %s: %d users, %d follows (most followed: %d followers), %d posts, %d timeline entries\n",
		time.Since(start).Round(time.Millisecond), stats.Users, stats.Follows, stats.MaxFollowers, stats.Posts, stats.TimelineEntries)
	per := func(stage, prev string, n int) string {
		base := mem0
		if prev != "" {
			base = marks[prev]
		}
		return fmt.Sprintf("%.0f B", float64(marks[stage]-base)/float64(max(n, 1)))
	}
	b.printf("memory (Redis used_memory): per user %s, per follow %s, per post %s, per timeline entry %s\n",
		per("users", "", stats.Users), per("follows", "users", stats.Follows),
		per("posts", "follows", stats.Posts), per("timelines", "posts", stats.TimelineEntries))
	return nil
}
