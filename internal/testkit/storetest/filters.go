package storetest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/posts"
)

// FilteredReaders writes, on the Redis at url through a store of its own
// (as another server would, so that a server under test reads none of it
// as a key it just wrote: kernel.Written), an author of n posts about
// five topics and two readers who follow them, "unfiltered" and
// "filtered"; the latter has three filters of home and public: a hide
// filter whose keywords the posts do not hold, and two warn filters (one
// matches a fifth of the posts), of 5 keywords each, whole words and
// not. It returns each reader's credential, made by credential from the
// user and the session of their sign-up (the session itself, or a
// token). The benchmarks of a filtered home timeline use it.
func FilteredReaders(t testing.TB, url string, n int, credential func(ctx context.Context, st *store.Store, uid int64, session string) (string, error)) map[string]string {
	t.Helper()
	st, ctx := Open(t, url, store.Options{}), t.Context()
	check := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	check(st.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))))
	StartWorker(t, url, store.Options{})
	author, _, err := st.Register(ctx, "author", "password1")
	check(err)
	for i := range n {
		topic := []string{"gardening", "soup", "dragons", "trains", "rain"}[i%5]
		_, err := st.Publish(ctx, posts.Draft{Author: author.ID, Text: fmt.Sprintf("post %d about %s, of a realistic length for a status update", i, topic)})
		check(err)
	}
	out := map[string]string{}
	for _, name := range []string{"unfiltered", "filtered"} {
		u, session, err := st.Register(ctx, name, "password1")
		check(err)
		check(st.Follow(ctx, u.ID, author.ID))
		out[name], err = credential(ctx, st, u.ID, session)
		check(err)
		if name == "filtered" {
			check(benchFilters(ctx, filters.New(st), u.ID))
		}
	}
	Drain(t, st)
	return out
}

// benchFilters gives uid FilteredReaders' three filters.
func benchFilters(ctx context.Context, fs *filters.Store, uid int64) error {
	for i, kws := range [][]string{{"dragon", "finale", "ending", "leak", "season 3"}, {"soup", "stew", "café", "recipe", "bake"}, {"election", "vote", "ballot", "senate", "poll"}} {
		title, action := fmt.Sprint("Filter ", i), []string{filters.Hide, filters.Warn, filters.Warn}[i]
		d := filters.Draft{Title: &title, Action: &action, Context: []string{filters.Home, filters.Public}}
		for j := range kws {
			whole := j%2 == 0
			d.Keywords = append(d.Keywords, filters.KeywordEdit{Keyword: &kws[j], WholeWord: &whole})
		}
		if _, err := fs.Create(ctx, uid, d); err != nil {
			return err
		}
	}
	return nil
}
