package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/retwis/retwis/internal/dataset"
	"github.com/retwis/retwis/internal/password"
	"github.com/retwis/retwis/internal/store/bulk"
)

// seed writes a synthetic network into the (empty) database through the
// bulk writer (package bulk), and reports Redis's memory per item.
func (b *bench) seed(ctx context.Context) error {
	empty, err := b.st.IsEmpty(ctx)
	if err != nil {
		return err
	}
	if !empty {
		return errors.New("the database already holds users or posts; seed an empty one")
	}
	hash, err := password.Hash(b.opts.Password, password.Default)
	if err != nil {
		return err
	}
	b.printf("seeding %d users, %d posts, %d follows per user on average\n", b.opts.Users, b.opts.Posts, b.opts.Follows)
	start := time.Now()
	mem0, err := b.st.UsedMemory(ctx)
	if err != nil {
		return err
	}
	marks := map[string]int64{}
	stats, err := dataset.Generate(ctx, bulk.NewLiveWriter(ctx, b.st.DB), dataset.GenerateOptions{
		NetworkOptions: dataset.NetworkOptions{Users: b.opts.Users, Posts: b.opts.Posts, AvgFollows: b.opts.Follows,
			Span: 30 * 24 * time.Hour, Until: time.Now(), Seed: 1},
		PasswordHash: hash,
		Timelines:    dataset.Timelines{HomeCap: b.opts.HomeCap, Archive: b.opts.Archive},
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
	b.printf("seeded in %s: %d users, %d follows (most followed: %d followers), %d posts (%d of them boosts), %d favourites, %d timeline entries (%d more archived)\n",
		time.Since(start).Round(time.Millisecond), stats.Users, stats.Follows, stats.MaxFollowers, stats.Posts, stats.Boosts, stats.Favourites,
		stats.TimelineEntries, stats.ArchivedEntries)
	per := func(stage, prev string, n int) string {
		base := mem0
		if prev != "" {
			base = marks[prev]
		}
		return fmt.Sprintf("%.0f B", float64(marks[stage]-base)/float64(max(n, 1)))
	}
	b.printf("memory (Redis used_memory): per user %s, per follow %s, per post %s, per favourite %s, per timeline entry %s",
		per("users", "", stats.Users), per("follows", "users", stats.Follows), per("posts", "follows", stats.Posts),
		per("favourites", "posts", stats.Favourites), per("timelines", "favourites", stats.TimelineEntries))
	if stats.ArchivedEntries > 0 {
		b.printf(", per archived entry %s", per("archives", "timelines", stats.ArchivedEntries))
	}
	b.printf("\n")
	return nil
}
