package upkeep

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestTrimHistory: a round of maintenance drops the oldest chunks of a
// home timeline's archive past --home-history; the timeline keeps its
// newest posts and pages through them to its new end; the check finds
// nothing amiss; a round with nothing past the history drops nothing,
// and an archive that grew again is trimmed by the next walk.
func TestTrimHistory(t *testing.T) {
	t.Parallel()
	// The list keeps 5 to 8 ids, chunks of 3; 11 ids of history keep 2
	// chunks.
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{HomeCap: 5, ArchiveChunk: 3, HomeHistory: 11}, true)
	reader, author := f.Register(t, "reader"), f.Register(t, "author")
	must.OK(t, f.St.Follow(f.Ctx, reader.ID, author.ID))
	post := func(n int) {
		for i := range n {
			f.Post(t, posts.Draft{Author: author.ID, Text: fmt.Sprint("post ", i)})
		}
		f.Drain(t)
	}
	post(30)
	users := []int64{reader.ID, author.ID} // the author's own posts are in their home timeline too
	all := map[int64][]int64{}
	read := func() {
		for _, uid := range users {
			all[uid] = storetest.PageAll(t, f.Home(t, uid, 4), nil)
		}
	}
	read()
	if n := must.Value(strconv.Atoi(f.Do(t, "ZCARD", fmt.Sprint("archive:{", reader.ID, "}"))))(t); n < 6 || len(all[reader.ID]) != 30 {
		t.Fatalf("before the round, %d posts in the timeline, %d chunks in the archive; want 30, and 6 chunks or more", len(all[reader.ID]), n)
	}
	round := func() Report {
		t.Helper()
		return must.Value(Round(f.Ctx, f.St, delivery.New(f.St, delivery.Options{Consumer: "upkeep"}), deletion.New(f.St)))(t)
	}
	trimmed := func(dropped int) {
		t.Helper()
		went := 0
		for _, uid := range users {
			went += trimmedTo(t, f, uid, all[uid])
		}
		if dropped != went {
			t.Fatalf("the round reports %d posts trimmed; %d went", dropped, went)
		}
		if problems := storetest.Problems(f.Check(t, false)); len(problems) > 0 {
			t.Fatalf("the check after trimming finds: %v", problems)
		}
	}
	trimmed(round().Trimmed)
	if rep := round(); rep.Trimmed != 0 {
		t.Fatalf("a second round trimmed %d posts; want none", rep.Trimmed)
	}
	post(6) // at least one more chunk
	read()
	trimmed(round().Trimmed)
}

// trimmedTo checks that uid's home timeline, which held all (newest
// first) before a round, now holds its list and two chunks, the newest
// of all, and pages through them to the end; it returns how many went.
func trimmedTo(t *testing.T, f *storetest.Fixture, uid int64, all []int64) int {
	t.Helper()
	list := must.Value(strconv.Atoi(f.Do(t, "LLEN", fmt.Sprint("posts:{", uid, "}"))))(t)
	got := storetest.PageAll(t, f.Home(t, uid, 4), nil)
	if len(got) != list+2*3 || len(got) < 11 || !slices.Equal(got, all[:len(got)]) {
		t.Fatalf("after the round user %d's timeline pages through %v; want the newest %d of %v (%d in the list, 2 chunks)",
			uid, got, list+2*3, all, list)
	}
	archive := fmt.Sprint("archive:{", uid, "}")
	if chunks := f.Keys(t, archive+":*"); len(chunks) != 2 || f.Do(t, "ZCARD", archive) != "2" {
		t.Fatalf("after the round user %d's archive has the chunks %v, %s in its index; want 2", uid, chunks, f.Do(t, "ZCARD", archive))
	}
	return len(all) - len(got)
}

// TestTrimHistoryBounded: a round drops at most historyChunks chunks,
// whatever the archives hold, and the next rounds go on where it
// stopped until every archive is down to its history.
func TestTrimHistoryBounded(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{HomeCap: 5, ArchiveChunk: 3, HomeHistory: 11}, false)
	const users, chunks = 3, 2*historyChunks/3 + 7 // more than two rounds' worth in all
	var cmds rueidis.Commands
	for uid := int64(1); uid <= users; uid++ {
		for n := range int64(chunks) {
			key := fmt.Sprint("archive:{", uid, "}")
			pid := strconv.FormatInt(1000+n, 10)
			cmds = append(cmds,
				f.Raw.B().Rpush().Key(fmt.Sprint(key, ":", n)).Element(pid).Build(),
				f.Raw.B().Zadd().Key(key).ScoreMember().ScoreMember(float64(1000+n), strconv.FormatInt(n, 10)).Build())
		}
	}
	must.OK(t, redisconn.FirstErr(f.Raw.DoMulti(f.Ctx, cmds...)))
	s := keeper{f.St}
	left := users * (chunks - 2)
	for left > 0 {
		dropped := must.Value(s.trimHistories(f.Ctx))(t)
		if want := min(left, historyChunks); dropped != want { // one id a chunk
			t.Fatalf("a round dropped %d chunks with %d past the history; want %d", dropped, left, want)
		}
		left -= dropped
	}
	for uid := 1; uid <= users; uid++ {
		key := fmt.Sprint("archive:{", uid, "}")
		if got := f.Strs(t, "ZRANGE", key, "0", "-1"); !slices.Equal(got, []string{strconv.Itoa(chunks - 2), strconv.Itoa(chunks - 1)}) {
			t.Fatalf("user %d's archive keeps the chunks %v; want its newest two", uid, got)
		}
	}
}
