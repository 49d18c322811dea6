package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/retwis/retwis/internal/bench"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
)

// benchConfig is the configuration of `retwis bench`.
type benchConfig struct {
	bench.Options
	redisURL       string        // the server's Redis, for seeding and inspection
	scenarios      string        // comma-separated
	commandTimeout time.Duration // of the seeding's and the measures' calls to Redis
}

func (c *benchConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8080", envHelp("base `URL` of the retwis server to load", "RETWIS_URL"))
	fs.StringVar(&c.redisURL, "redis", "", envHelp("the server's Redis `URL`, for seeding and measuring", "REDIS_URL"))
	fs.BoolVar(&c.Seed, "seed", false, "seed a synthetic network first (the database must be empty)")
	fs.IntVar(&c.Users, "users", 10_000, "`number` of users to seed")
	fs.IntVar(&c.Posts, "posts", 1_000_000, "`number` of posts to seed")
	fs.IntVar(&c.Follows, "follows", 50, "average `number` of accounts a seeded user follows")
	fs.IntVar(&c.HomeCap, "home-cap", kernel.DefaultHomeCap,
		envHelp("entries per seeded home timeline `list`, as the server's --home-cap", "RETWIS_HOME_CAP"))
	fs.IntVar(&c.Archive, "archive", 1000, "older `entries` per seeded home timeline, kept below its list in its archive")
	fs.IntVar(&c.Connections, "connections", 64, "concurrent `connections`, each logged in as a different user")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "how `long` to run each scenario")
	fs.StringVar(&c.scenarios, "scenarios", strings.Join(bench.Scenarios(), ","), "comma-separated `list` of scenarios")
	fs.StringVar(&c.Curves, "curves", "", "measure growth curves and write their SVG charts into this `directory`")
	fs.StringVar(&c.Password, "password", "benchpass1", "`password` of the seeded users (user1, user2, …)")
	fs.DurationVar(&c.commandTimeout, "command-timeout", redisconn.DefaultCommandTimeout, envHelp(
		"how `long` a Redis command or pipeline of the seeding and the measures may take", "RETWIS_COMMAND_TIMEOUT"))
	fs.IntVar(&c.MaxAudience, "max-followers", 1_000_000, "largest follower `count` of the delivery curve (1000, 10000, … up to this)")
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg benchConfig
	fs := newFlagSet("bench", stderr)
	cfg.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for name := range strings.SplitSeq(cfg.scenarios, ",") {
		if name = strings.TrimSpace(name); name != "" {
			cfg.Scenarios = append(cfg.Scenarios, name)
		}
	}
	if cfg.redisURL == "" {
		return usageError(fs, "--redis is needed (the server's Redis, to seed and to measure)")
	}
	if err := cfg.Check(); err != nil {
		return usageError(fs, "%v", err)
	}
	if cfg.commandTimeout < time.Millisecond {
		return usageError(fs, "--command-timeout must be at least 1ms")
	}
	st, err := openStore(cfg.redisURL, store.Options{HomeCap: cfg.HomeCap, CommandTimeout: cfg.commandTimeout})
	if err != nil {
		return err
	}
	defer st.Close()
	return bench.Run(ctx, st, cfg.Options, stdout)
}
