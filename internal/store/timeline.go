package store

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// HomeTimeline returns n posts of uid's home timeline from offset start,
// with uid's follower counts: three round trips in all.
func (s *Store) HomeTimeline(ctx context.Context, uid int64, start, n int) (retwis.Page, retwis.Counts, error) {
	b := s.c.B()
	res := s.c.DoMulti(ctx, append(s.countCmds(uid),
		b.Lrange().Key(keyHome(uid)).Start(int64(start)).Stop(int64(start+n)).Build())...)
	counts, err := s.parseCounts(res)
	if err != nil {
		return retwis.Page{}, counts, err
	}
	page, err := s.page(ctx, res[2], start, n)
	return page, counts, err
}

// Profile returns the profile of uid as seen by viewer (0 when logged
// out): n of uid's own posts from offset start, counts, and whether the
// viewer follows uid. Three round trips.
func (s *Store) Profile(ctx context.Context, viewer int64, user retwis.User, start, n int) (retwis.Profile, error) {
	b := s.c.B()
	cmds := append(s.countCmds(user.ID),
		b.Zrevrange().Key(keyUserPosts(user.ID)).Start(int64(start)).Stop(int64(start+n)).Build(),
		b.Zscore().Key(keyFollowing(viewer)).Member(id(user.ID)).Build())
	res := s.c.DoMulti(ctx, cmds...)
	prof := retwis.Profile{User: user}
	var err error
	if prof.Counts, err = s.parseCounts(res); err != nil {
		return prof, err
	}
	if err := res[3].Error(); err != nil && !rueidis.IsRedisNil(err) {
		return prof, s.wrap("profile: following", err)
	}
	prof.Followed = res[3].Error() == nil
	prof.Page, err = s.page(ctx, res[2], start, n)
	return prof, err
}

// GlobalTimeline returns the newest n posts of the global timeline.
func (s *Store) GlobalTimeline(ctx context.Context, n int) ([]retwis.Post, error) {
	r := s.c.Do(ctx, s.c.B().Lrange().Key(keyTimeline).Start(0).Stop(int64(n-1)).Build())
	page, err := s.page(ctx, r, 0, n)
	return page.Posts, err
}

// Counts returns uid's follower and following counts.
func (s *Store) Counts(ctx context.Context, uid int64) (retwis.Counts, error) {
	return s.parseCounts(s.c.DoMulti(ctx, s.countCmds(uid)...))
}

func (s *Store) countCmds(uid int64) rueidis.Commands {
	b := s.c.B()
	return rueidis.Commands{
		b.Zcard().Key(keyFollowers(uid)).Build(),
		b.Zcard().Key(keyFollowing(uid)).Build(),
	}
}

func (s *Store) parseCounts(res []rueidis.RedisResult) (retwis.Counts, error) {
	followers, err := res[0].AsInt64()
	if err != nil {
		return retwis.Counts{}, s.wrap("counts", err)
	}
	following, err := res[1].AsInt64()
	return retwis.Counts{Followers: followers, Following: following}, s.wrap("counts", err)
}

// page turns a reply listing up to n+1 post ids (the extra one tells
// whether older posts follow) into a page of posts.
func (s *Store) page(ctx context.Context, ids rueidis.RedisResult, start, n int) (retwis.Page, error) {
	pids, err := ids.AsIntSlice()
	if err != nil {
		return retwis.Page{}, s.wrap("timeline", err)
	}
	page := retwis.Page{Start: start, More: len(pids) > n}
	if page.More {
		pids = pids[:n]
	}
	page.Posts, err = s.posts(ctx, pids)
	return page, err
}
