package accounts

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/snowflake"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/zorder"
)

// Bounds of a directory query.
const (
	// directoryRanges is how many ranges of codes a query reads at most
	// (the decomposition of its box).
	directoryRanges = 64
	// DirectoryBudget is how many index entries a query reads at most.
	DirectoryBudget = 1000
)

// FirstSnowflake is the smallest id a server makes (snowflake.Time).
const FirstSnowflake = 1 << 32

// Facts are what a user's entry in the directory is made of, read from
// the sources of truth: the user hash, the followers and the own posts.
type Facts struct {
	uid               int64
	exists            bool
	username, display string
	suspended         bool // left out of the directory's pages while it is
	followers, posts  int64
	joined            time.Time
	legacy            []int64 // ids of recent posts whose time must be read
	legacyRecent      int64   // how many of them are in the week
	legacyUnreadable  bool
	newest            int64 // the id of the newest post (0: none): ids grow with time
}

// Code returns the entry's score.
func (f Facts) Code() uint64 { return index.Code(f.followers, f.posts+f.legacyRecent, f.joined) }

// account returns f as the directory lists it.
func (f Facts) account() retwis.Account {
	return retwis.Account{
		Person:        retwis.Person{User: retwis.User{ID: f.uid, Username: f.username}, DisplayName: f.display, Followers: f.followers},
		PostsThisWeek: f.posts + f.legacyRecent,
		Joined:        f.joined,
	}
}

// weekStart returns where the count of recent posts begins at now: a
// week before, to the minute, so that a count read through the
// client-side cache serves for a minute.
func weekStart(now time.Time) time.Time { return now.Add(-retwis.DirectoryWeek).Truncate(time.Minute) }

// ReadFacts reads the facts of uids: one pipeline, and one more for the
// times of recent posts whose ids tell none; through the client-side
// cache if cached (a page's), else from Redis (what writes an entry).
func (s *Store) ReadFacts(ctx context.Context, uids []int64, now time.Time, cached bool) ([]Facts, error) {
	b := s.C.B()
	since := weekStart(now)
	cmds := make([]rueidis.Cacheable, 0, factReads*len(uids))
	for _, uid := range uids {
		cmds = append(cmds,
			b.Hmget().Key(schema.User(uid)).Field(schema.FieldUsername, schema.FieldDisplayName, schema.FieldJoined, schema.FieldSuspended).Cache(),
			b.Zcard().Key(schema.Followers(uid)).Cache(),
			b.Zcount().Key(schema.UserPosts(uid)).Min(kernel.ID(snowflake.First(since))).Max("+inf").Cache(),
			b.Zrange().Key(schema.UserPosts(uid)).Min("("+kernel.ID(FirstSnowflake)).Max("-inf").Byscore().Rev().Limit(0, index.LegacyPostsCounted).Cache(),
			b.Zrange().Key(schema.UserPosts(uid)).Min("0").Max("0").Rev().Cache())
	}
	res := s.reads(ctx, cached, cmds)
	all := make([]Facts, len(uids))
	for i, uid := range uids {
		f, err := factsOf(uid, res[factReads*i:factReads*(i+1)])
		if err != nil {
			return nil, s.Wrap("directory: facts", err)
		}
		all[i] = f
	}
	return all, s.countLegacy(ctx, all, since)
}

// factReads is how many commands ReadFacts sends per user.
const factReads = 5

// reads sends cmds through the client-side cache if cached, else as
// plain commands, in one round trip.
func (s *Store) reads(ctx context.Context, cached bool, cmds []rueidis.Cacheable) []rueidis.RedisResult {
	if cached {
		cts := make([]rueidis.CacheableTTL, len(cmds))
		for i, c := range cmds {
			cts[i] = rueidis.CT(c, s.Opts.CacheTTL)
		}
		return s.CachedMulti(ctx, cts...)
	}
	plain := make(rueidis.Commands, len(cmds))
	for i, c := range cmds {
		plain[i] = s.Uncached(c)
	}
	return s.C.DoMulti(ctx, plain...)
}

// factsOf reads the replies of ReadFacts about uid.
func factsOf(uid int64, res []rueidis.RedisResult) (Facts, error) {
	f := Facts{uid: uid}
	vals, err := res[0].ToArray()
	if err != nil || len(vals) != 4 {
		return f, redisconn.FirstErr(res[:1])
	}
	f.username, _ = vals[0].ToString()
	f.display, _ = vals[1].ToString()
	f.suspended = !vals[3].IsNil()
	f.exists = f.username != ""
	if joined, err := vals[2].AsInt64(); err == nil {
		f.joined = time.Unix(joined, 0)
	} else {
		f.joined = snowflake.Time(uid) // made by a server before version 7: its id tells
	}
	if f.followers, err = res[1].AsInt64(); err != nil {
		return f, err
	}
	if f.posts, err = res[2].AsInt64(); err != nil {
		return f, err
	}
	if f.legacy, err = res[3].AsIntSlice(); err != nil {
		return f, err
	}
	newest, err := res[4].AsIntSlice()
	if len(newest) == 1 {
		f.newest = newest[0]
	}
	return f, err
}

// legacyReadAll is how many posts with ids that tell no time a user may
// have for countLegacy to read all their times; of a longer list it
// reads a few (see countLegacy).
const legacyReadAll = 8

// countLegacy counts the posts of all's legacy lists made since, by
// their times, which never change and are read through the client-side
// cache whoever asks. A list
// of up to legacyReadAll is read whole; of a longer one, whose ids
// (newest first) were given in the order of their posts' times by the
// one counter or writer that made them, the first and the last, then
// by bisection where the week begins: one round trip, and one more per
// halving for the users whose posts straddle the start of the week.
func (s *Store) countLegacy(ctx context.Context, all []Facts, since time.Time) error {
	type span struct{ f, lo, hi int } // all[f]'s posts lo.. are recent, hi.. are not; bisect between
	var probes []int64
	for _, f := range all {
		if n := len(f.legacy); n <= legacyReadAll {
			probes = append(probes, f.legacy...)
		} else {
			probes = append(probes, f.legacy[0], f.legacy[n-1])
		}
	}
	times, err := s.postTimes(ctx, probes)
	if err != nil {
		return err
	}
	recent := func(t int64) bool { return t >= since.Unix() }
	var open []span
	for j := range all {
		n := len(all[j].legacy)
		switch {
		case n <= legacyReadAll:
			for _, t := range times[:n] {
				if recent(t) {
					all[j].legacyRecent++
				}
			}
			times = times[n:]
			continue
		case recent(times[1]):
			all[j].legacyRecent = int64(n)
		case recent(times[0]):
			open = append(open, span{j, 0, n - 1})
		}
		times = times[2:]
	}
	for len(open) > 0 {
		probes = probes[:0]
		for _, sp := range open {
			probes = append(probes, all[sp.f].legacy[(sp.lo+sp.hi)/2])
		}
		if times, err = s.postTimes(ctx, probes); err != nil {
			return err
		}
		still := open[:0]
		for k, sp := range open {
			if mid := (sp.lo + sp.hi) / 2; recent(times[k]) {
				sp.lo = mid
			} else {
				sp.hi = mid
			}
			if sp.hi-sp.lo > 1 {
				still = append(still, sp)
			} else {
				all[sp.f].legacyRecent = int64(sp.lo + 1)
			}
		}
		open = still
	}
	return nil
}

// postTimes reads the times of pids (-1 for a post that is gone), in one
// pipeline, through the client-side cache.
func (s *Store) postTimes(ctx context.Context, pids []int64) ([]int64, error) {
	if len(pids) == 0 {
		return nil, nil
	}
	cmds := make([]rueidis.Cacheable, len(pids))
	for i, pid := range pids {
		cmds[i] = s.C.B().Hget().Key(schema.Post(pid)).Field(schema.FieldTime).Cache()
	}
	times := make([]int64, len(pids))
	for i, r := range s.reads(ctx, true, cmds) {
		t, err := r.AsInt64()
		if rueidis.IsRedisNil(err) {
			t, err = -1, nil
		}
		if err != nil {
			return nil, s.Wrap("directory: post times", err)
		}
		times[i] = t
	}
	return times, nil
}

// entryCmds return the commands that make the directory's entry for f,
// and its place among the users by activity, what its facts say: gone
// if the user is.
func (s *Store) entryCmds(f Facts) rueidis.Commands {
	return index.Commands(s.C, [][]string{index.EntryWrite(f.uid, f.exists, f.Code()), index.ActivityWrite(f.uid, f.exists, f.newest)})
}

// RefreshDirectory brings the directory's entries for uids in line with
// their facts: after a post, a deletion, a follow. Each entry is one
// ZADD of the whole entry, so the last refresh of a user wins, and is
// right as of its reading.
func (s *Store) RefreshDirectory(ctx context.Context, uids ...int64) error {
	if len(uids) == 0 {
		return nil
	}
	all, err := s.ReadFacts(ctx, uids, time.Now(), false)
	if err != nil {
		return err
	}
	cmds := make(rueidis.Commands, 0, 2*len(all))
	for _, f := range all {
		cmds = append(cmds, s.entryCmds(f)...)
	}
	return s.Wrap("directory: write", redisconn.FirstErr(s.C.DoMulti(ctx, cmds...)))
}

// staleBatch is how many marked entries RefreshStale refreshes at a time,
// and staleRound at most in one round of maintenance.
const (
	staleBatch = 500
	staleRound = 10000
)

// RefreshStale refreshes the directory's entries that deliveries marked
// (schema.ExploreStale), a batch at a time, and returns how many; Maintain
// calls it every round. A batch taken but not refreshed is marked again.
func (s *Store) RefreshStale(ctx context.Context) (int, error) {
	done := 0
	for done < staleRound {
		uids, err := s.C.Do(ctx, s.C.B().Spop().Key(schema.ExploreStale).Count(staleBatch).Build()).AsIntSlice()
		if err != nil || len(uids) == 0 {
			return done, s.Wrap("maintenance: directory", err)
		}
		if err := s.RefreshDirectory(ctx, uids...); err != nil {
			if rerr := s.C.Do(ctx, s.C.B().Sadd().Key(schema.ExploreStale).Member(kernel.IDs(uids)...).Build()).Error(); rerr != nil {
				s.Log.Warn("directory entries left stale", "users", len(uids), "err", rerr)
			}
			return done, err
		}
		done += len(uids)
	}
	return done, nil
}

// RefreshQuietly is refreshDirectory for writes that have succeeded
// whatever becomes of the directory: on a failure, the entries are
// marked stale (schema.ExploreStale) for the next round of maintenance
// to refresh (RefreshStale); if even that fails, it is logged, and left
// to the next refresh of the user or to the check.
func (s *Store) RefreshQuietly(ctx context.Context, uids ...int64) {
	err := s.RefreshDirectory(ctx, uids...)
	if err == nil {
		return
	}
	if rerr := s.C.Do(ctx, s.C.B().Sadd().Key(schema.ExploreStale).Member(kernel.IDs(uids)...).Build()).Error(); rerr != nil {
		s.Log.Warn("directory entries not refreshed", "users", uids, "err", err, "marking them stale", rerr)
	}
}

// boxOf returns the box of codes d asks for.
func boxOf(d retwis.Directory) zorder.Box {
	hi := func(r retwis.Range, dim int) uint64 {
		if r.Max < 0 {
			return index.Directory.Max(dim)
		}
		return uint64(r.Max)
	}
	joinedTo := index.Directory.Max(index.DimJoined)
	if !d.JoinedTo.IsZero() {
		joinedTo = uint64(d.JoinedTo.Unix() / 86400)
	}
	return zorder.Box{
		Min: []uint64{uint64(d.Followers.Min), uint64(d.Posts.Min), uint64(max(d.JoinedFrom.Unix(), 0) / 86400)},
		Max: []uint64{hi(d.Followers, index.DimFollowers), hi(d.Posts, index.DimPosts), joinedTo},
	}
}

// Explore returns the accounts of the directory that d asks for, up to
// n of them, most followed first, with how many matched. It reads the
// sizes of the ranges of codes that make up d's box, then up to
// directoryBudget entries from the ranges of the most followed down,
// then the facts of the n it shows, which it checks: an entry that is
// out of date (a week has passed since the posts it counts) is
// corrected on the way, and left out if it no longer matches. Three
// round trips, four with a correction.
func (s *Store) Explore(ctx context.Context, d retwis.Directory, n int) (retwis.Listing, error) {
	if err := d.Validate(); err != nil {
		return retwis.Listing{}, err
	}
	box := boxOf(d)
	ranges := index.Directory.Ranges(box, directoryRanges)
	if len(ranges) == 0 {
		return retwis.Listing{Exact: true}, nil
	}
	codes, listing, err := s.exploreRanges(ctx, box, ranges)
	if err != nil {
		return listing, err
	}
	shown, err := s.checkEntries(ctx, box, codes[:min(n, len(codes))])
	listing.Accounts = shown
	return listing, err
}

// entry is a user found in the directory, with the code it is indexed
// by and the follower count in it.
type entry struct {
	uid             int64
	code, followers uint64
}

// exploreRanges reads the entries of ranges that lie in box, within the
// budget, and returns them most followed first, and how many matched.
func (s *Store) exploreRanges(ctx context.Context, box zorder.Box, ranges []zorder.Range) ([]entry, retwis.Listing, error) {
	b := s.C.B()
	counts := make(rueidis.Commands, len(ranges))
	for i, r := range ranges {
		counts[i] = b.Zcount().Key(schema.Explore).Min(score(r.Min)).Max(score(r.Max)).Build()
	}
	sizes := make([]int64, len(ranges))
	for i, r := range s.C.DoMulti(ctx, counts...) {
		var err error
		if sizes[i], err = r.AsInt64(); err != nil {
			return nil, retwis.Listing{}, s.Wrap("explore: count", err)
		}
	}
	// From the highest codes down: the top bit of a code is the
	// follower count's.
	var reads rueidis.Commands
	budget, unread := int64(DirectoryBudget), int64(0)
	for i := len(ranges) - 1; i >= 0; i-- {
		take := min(sizes[i], budget)
		if take > 0 {
			r := ranges[i]
			reads = append(reads, b.Zrange().Key(schema.Explore).Min(score(r.Max)).Max(score(r.Min)).Byscore().Rev().Limit(0, take).Withscores().Build())
		}
		budget -= take
		if sizes[i] > take && ranges[i].Inside {
			unread += sizes[i] - take
		}
	}
	listing := retwis.Listing{Exact: sumOf(sizes) <= DirectoryBudget}
	var found []entry
	for _, r := range s.C.DoMulti(ctx, reads...) {
		members, err := r.AsZScores()
		if err != nil {
			return nil, listing, s.Wrap("explore: read", err)
		}
		for _, m := range members {
			uid, err := strconv.ParseInt(m.Member, 10, 64)
			if code := uint64(m.Score); err == nil && index.Directory.Contains(box, code) {
				found = append(found, entry{uid, code, index.Directory.Decode(code)[index.DimFollowers]})
			}
		}
	}
	listing.Matched = int64(len(found)) + unread
	slices.SortFunc(found, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.followers, a.followers), cmp.Compare(a.uid, b.uid))
	})
	return found, listing, nil
}

// checkEntries reads the facts of found and returns their accounts, but
// for those whose facts no longer lie in box and the suspended (their
// user hash's mark, set with the suspended set); it corrects the entries
// that are out of date (read repair), in one more round trip if any.
func (s *Store) checkEntries(ctx context.Context, box zorder.Box, found []entry) ([]retwis.Account, error) {
	uids := make([]int64, len(found))
	for i, e := range found {
		uids[i] = e.uid
	}
	all, err := s.ReadFacts(ctx, uids, time.Now(), true)
	if err != nil {
		return nil, err
	}
	var accounts []retwis.Account
	var fixes rueidis.Commands
	for i, f := range all {
		code := f.Code()
		if !f.exists || code != found[i].code {
			fixes = append(fixes, s.entryCmds(f)...)
		}
		if f.exists && index.Directory.Contains(box, code) && !f.suspended {
			accounts = append(accounts, f.account())
		}
	}
	if len(fixes) > 0 {
		if err := redisconn.FirstErr(s.C.DoMulti(ctx, fixes...)); err != nil {
			s.Log.Warn("directory entries out of date stay so", "entries", len(fixes), "err", err)
		}
	}
	return accounts, nil
}

// score writes a code as a score of a range query.
func score(code uint64) string { return strconv.FormatUint(code, 10) }

// sumOf adds ns up.
func sumOf(ns []int64) int64 {
	var sum int64
	for _, n := range ns {
		sum += n
	}
	return sum
}
