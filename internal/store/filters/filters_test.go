package filters_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// cluster is the 3-master cluster the tests of OnRedisAndCluster share.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

func ptr[T any](v T) *T { return &v }

// draft is a filter titled title, of action in contexts, with keywords.
func draft(title, action string, contexts []string, keywords ...string) filters.Draft {
	d := filters.Draft{Title: &title, Action: &action, Context: contexts}
	for _, k := range keywords {
		whole := !strings.HasPrefix(k, "~")
		d.Keywords = append(d.Keywords, filters.KeywordEdit{Keyword: ptr(strings.TrimPrefix(k, "~")), WholeWord: &whole})
	}
	return d
}

// shown returns the bodies of the posts a list shows.
func shown(a filters.Applied) []string {
	var out []string
	for _, p := range a.Posts {
		out = append(out, p.Body)
	}
	return out
}

// TestFiltersApply: a hide filter leaves its posts out of the lists of
// its contexts only, a warn filter keeps them with the keywords found,
// whole words only where asked, folded; the reader's own posts are never
// filtered; an expired filter stops applying and the next write drops it.
func TestFiltersApply(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		fs := filters.New(f.St)
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		hide := must.Value(fs.Create(f.Ctx, alice.ID, draft("Spoilers", filters.Hide, []string{filters.Home, filters.Public}, "dragon")))(t)
		warn := must.Value(fs.Create(f.Ctx, alice.ID, draft("Food", filters.Warn, []string{filters.Home}, "~soup", "CAFÉ")))(t)
		acct := must.Value(f.St.Account(f.Ctx, alice.ID, false))(t)
		if !acct.Filtered {
			t.Fatal("the user who made filters is not marked")
		}
		reader := retwis.User{ID: alice.ID, Filtered: true}
		var list []retwis.Post
		for _, text := range []string{"the Dragon returns", "dragonfly", "a soupçon of luck", "Cafe visit", "nothing here"} {
			list = append(list, f.Post(t, posts.Draft{Author: bob.ID, Text: text}))
		}
		list = append(list, f.Post(t, posts.Draft{Author: alice.ID, Text: "my own dragon"}))
		home := must.Value(fs.Apply(f.Ctx, reader, filters.Home, list))(t)
		if want := []string{"dragonfly", "a soupçon of luck", "Cafe visit", "nothing here", "my own dragon"}; !slices.Equal(shown(home), want) {
			t.Errorf("home shows %q; want %q", shown(home), want)
		}
		if m := home.Matches[list[2].ID]; len(m) != 1 || m[0].Filter.ID != warn.ID || !slices.Equal(m[0].Keywords, []string{"soup"}) {
			t.Errorf("the soupçon's matches: %+v", m)
		}
		if m := home.Matches[list[3].ID]; len(m) != 1 || !slices.Equal(m[0].Keywords, []string{"CAFÉ"}) {
			t.Errorf("the café's matches: %+v", m)
		}
		thread := must.Value(fs.Apply(f.Ctx, reader, filters.Thread, list))(t)
		if len(thread.Posts) != len(list) || len(thread.Matches) != 0 {
			t.Errorf("the filters applied in a thread: %q, %v", shown(thread), thread.Matches)
		}
		if visitor := must.Value(fs.Apply(f.Ctx, retwis.User{}, filters.Home, list))(t); len(visitor.Posts) != len(list) {
			t.Error("a visitor's list was filtered")
		}
		must.Value(fs.Update(f.Ctx, alice.ID, hide.ID, filters.Draft{Expires: ptr(time.Now().Add(-time.Second))}))(t)
		if home := must.Value(fs.Apply(f.Ctx, reader, filters.Home, list))(t); len(home.Posts) != len(list) {
			t.Errorf("an expired filter still hides: %q", shown(home))
		}
		must.Value(fs.AddKeyword(f.Ctx, alice.ID, warn.ID, "luck", false))(t) // a write drops the expired filter
		if all := must.Value(fs.List(f.Ctx, alice.ID))(t); len(all) != 1 || all[0].ID != warn.ID || len(all[0].Keywords) != 3 {
			t.Errorf("after a write: %+v", all)
		}
		if n := f.Do(t, "HGET", "filters:{"+strconv.FormatInt(alice.ID, 10)+"}", "doc"); strings.Contains(n, "Spoilers") {
			t.Errorf("the expired filter is still stored: %s", n)
		}
	})
}

// TestFiltersWrites: keywords and posts are added, changed and removed
// by their ids, which are the user's own; the bounds and rules are
// refused as Invalid; writes at once lose none.
func TestFiltersWrites(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		fs := filters.New(f.St)
		alice, bob := f.Register(t, "alice"), f.Register(t, "bob")
		flt := must.Value(fs.Create(f.Ctx, alice.ID, draft("Words", filters.Warn, []string{filters.Home}, "one")))(t)
		kw := must.Value(fs.AddKeyword(f.Ctx, alice.ID, flt.ID, "two", true))(t)
		must.Value(fs.UpdateKeyword(f.Ctx, alice.ID, kw.ID, ptr("deux"), ptr(false)))(t)
		p := f.Post(t, posts.Draft{Author: bob.ID, Text: "hello"})
		reader := retwis.User{ID: alice.ID, Filtered: true}
		ref := must.Value(fs.AddStatus(f.Ctx, alice.ID, flt.ID, p.ID))(t)
		got, k, err := fs.KeywordOf(f.Ctx, alice.ID, kw.ID)
		must.OK(t, err)
		if got.ID != flt.ID || k.Keyword != "deux" || k.WholeWord {
			t.Errorf("the keyword changed: %+v", k)
		}
		if home := must.Value(fs.Apply(f.Ctx, reader, filters.Home, []retwis.Post{p}))(t); len(home.Matches[p.ID]) != 1 || !slices.Equal(home.Matches[p.ID][0].Statuses, []int64{ref.ID}) {
			t.Errorf("the post filtered: %+v", home.Matches)
		}
		must.OK(t, fs.DeleteStatus(f.Ctx, alice.ID, ref.ID))
		must.OK(t, fs.DeleteKeyword(f.Ctx, alice.ID, kw.ID))
		storetest.WantKind(t, fs.DeleteKeyword(f.Ctx, alice.ID, kw.ID), retwis.NotFound)
		storetest.WantKind(t, fs.Delete(f.Ctx, bob.ID, flt.ID), retwis.NotFound)
		_, err = fs.Create(f.Ctx, alice.ID, draft("Bad", "mute", []string{filters.Home}))
		storetest.WantKind(t, err, retwis.Invalid)
		_, err = fs.Create(f.Ctx, alice.ID, draft("Bad", filters.Warn, []string{"everywhere"}))
		storetest.WantKind(t, err, retwis.Invalid)
		for range filters.MaxKeywords - 1 {
			must.Value(fs.AddKeyword(f.Ctx, alice.ID, flt.ID, "k", false))(t)
		}
		_, err = fs.AddKeyword(f.Ctx, alice.ID, flt.ID, "k", false)
		storetest.WantKind(t, err, retwis.Invalid)

		var wg sync.WaitGroup // filters created at once: none lost
		for i := range 8 {
			wg.Go(func() {
				if _, err := fs.Create(f.Ctx, bob.ID, draft("F"+strconv.Itoa(i), filters.Warn, []string{filters.Home})); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n := len(must.Value(fs.List(f.Ctx, bob.ID))(t)); n != 8 {
			t.Errorf("%d filters created at once; want 8", n)
		}
		for range filters.MaxFilters - 8 {
			must.Value(fs.Create(f.Ctx, bob.ID, draft("more", filters.Warn, []string{filters.Home})))(t)
		}
		_, err = fs.Create(f.Ctx, bob.ID, draft("one too many", filters.Warn, []string{filters.Home}))
		storetest.WantKind(t, err, retwis.Invalid)
		if n := len(must.Value(fs.List(f.Ctx, bob.ID))(t)); n != filters.MaxFilters {
			t.Errorf("%d filters; want %d", n, filters.MaxFilters)
		}
		must.OK(t, fs.Delete(f.Ctx, alice.ID, flt.ID))
		if n := len(must.Value(fs.List(f.Ctx, alice.ID))(t)); n != 0 {
			t.Errorf("%d filters after the delete", n)
		}
	})
}

// TestFiltersWarmReadIsFree: once read, a user's filters are applied to
// a page without a round trip (the memo of the compiled set), and a
// change made by another server reaches it (the invalidation).
func TestFiltersWarmReadIsFree(t *testing.T) {
	t.Parallel()
	url := redistest.Start(t).URL
	f := storetest.NewFixture(t, url, store.Options{}, false)
	alice := f.Register(t, "alice")
	writer := filters.New(f.St)
	other, rc := storetest.OpenCounting(t, url, store.Options{})
	fs := filters.New(other)
	flt := must.Value(writer.Create(f.Ctx, alice.ID, draft("W", filters.Hide, []string{filters.Home}, "secret")))(t)
	list := []retwis.Post{{ID: 1, AuthorID: 99, Body: "a secret"}}
	reader := retwis.User{ID: alice.ID, Filtered: true}
	before := rc.Calls.Load()
	if got := must.Value(fs.Apply(f.Ctx, retwis.User{ID: alice.ID}, filters.Home, list))(t); len(got.Posts) != 1 || rc.Calls.Load() != before {
		t.Error("a user not marked as one with filters had their filters read")
	}
	if home := must.Value(fs.Apply(f.Ctx, reader, filters.Home, list))(t); len(home.Posts) != 0 {
		t.Fatal("the post was not hidden")
	}
	before = rc.Calls.Load()
	for range 3 {
		must.Value(fs.Apply(f.Ctx, reader, filters.Home, list))(t)
	}
	if n := rc.Calls.Load() - before; n != 0 {
		t.Errorf("warm applies made %d round trips; want 0", n)
	}
	must.OK(t, writer.Delete(f.Ctx, alice.ID, flt.ID))
	deadline := time.Now().Add(5 * time.Second)
	for len(must.Value(fs.Apply(f.Ctx, reader, filters.Home, list))(t).Posts) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the deleted filter still applies after 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
