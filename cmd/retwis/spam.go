package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
)

// spamConfig is the configuration of `retwis spam`.
type spamConfig struct {
	redisURL string
	posts    string
	within   time.Duration
	limit    int
}

func (c *spamConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.redisURL, "redis", "", envHelp("the database's Redis `URL`", "REDIS_URL"))
	fs.StringVar(&c.posts, "posts", "50-", "posts in the last seven days, a `range` (MIN-MAX, MIN-, -MAX)")
	fs.DurationVar(&c.within, "joined-within", 7*24*time.Hour, "list accounts made in this last `span`")
	fs.IntVar(&c.limit, "limit", 50, "list at most this many `accounts`")
}

// runSpam lists the accounts made recently that post very much, the
// most followed first: the operator's spam view, read from the
// directory of accounts (the same index as /explore).
func runSpam(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg spamConfig
	fs := newFlagSet("spam", stderr)
	cfg.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	posts, err := retwis.ParseRange(cfg.posts)
	switch {
	case cfg.redisURL == "":
		return usageError(fs, "--redis is needed")
	case err != nil:
		return usageError(fs, "--posts: %s", retwis.ErrorMessage(err))
	case cfg.within <= 0:
		return usageError(fs, "--joined-within must be positive")
	case cfg.limit < 1 || cfg.limit > 1000:
		return usageError(fs, "--limit must be 1 to 1000")
	}
	st, err := openStore(cfg.redisURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	d := retwis.Directory{Followers: retwis.Any, Posts: posts, JoinedFrom: time.Now().Add(-cfg.within).UTC().Truncate(24 * time.Hour)}
	listing, err := st.Explore(ctx, d, cfg.limit)
	if err != nil {
		return err
	}
	return printAccounts(stdout, listing)
}

// printAccounts writes a listing of the directory as a table.
func printAccounts(w io.Writer, l retwis.Listing) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "USER\tID\tFOLLOWERS\tPOSTS (7 DAYS)\tJOINED")
	for _, a := range l.Accounts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", a.User.Username, a.User.ID, a.Followers, a.PostsThisWeek, a.Joined.UTC().Format(time.DateOnly))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	more := "of"
	if !l.Exact {
		more = "of more than"
	}
	_, err := fmt.Fprintf(w, "%d %s %d matching accounts\n", len(l.Accounts), more, l.Matched)
	return err
}
