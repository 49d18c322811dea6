package store

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
)

// CreatePost stores a status update by author and fans it out: onto the
// home timeline of every follower and of the author, the author's own
// posts, and the global timeline (capped). It costs three round trips
// whatever the number of followers: the fanout is one pipeline.
func (s *Store) CreatePost(ctx context.Context, author int64, text string) (retwis.Post, error) {
	body, err := retwis.NormalizeStatus(text)
	if err != nil {
		return retwis.Post{}, err
	}
	b := s.c.B()
	first := s.c.DoMulti(ctx,
		b.Incr().Key(keyNextPostID).Build(),
		b.Zrange().Key(keyFollowers(author)).Min("0").Max("-1").Build(),
	)
	pid, err := first[0].AsInt64()
	if err != nil {
		return retwis.Post{}, s.wrap("create post: next id", err)
	}
	followers, err := first[1].AsIntSlice()
	if err != nil {
		return retwis.Post{}, s.wrap("create post: followers", err)
	}
	now := time.Now()
	// The hash goes first, on its own, so that no timeline ever holds the
	// id of a post that cannot be read (pipelines to different cluster
	// nodes are not ordered).
	err = s.c.Do(ctx, b.Hset().Key(keyPost(pid)).FieldValue().
		FieldValue("user_id", id(author)).
		FieldValue("time", strconv.FormatInt(now.Unix(), 10)).
		FieldValue("body", body).Build()).Error()
	if err != nil {
		return retwis.Post{}, s.wrap("create post: write", err)
	}
	if err := s.fanout(ctx, pid, author, followers); err != nil {
		return retwis.Post{}, err
	}
	return retwis.Post{ID: pid, AuthorID: author, Time: now.Truncate(time.Second), Body: body}, nil
}

func (s *Store) fanout(ctx context.Context, pid, author int64, followers []int64) error {
	b := s.c.B()
	p := id(pid)
	cmds := make(rueidis.Commands, 0, len(followers)+4)
	for _, f := range followers {
		if f != author {
			cmds = append(cmds, b.Lpush().Key(keyHome(f)).Element(p).Build())
		}
	}
	cmds = append(cmds,
		b.Lpush().Key(keyHome(author)).Element(p).Build(),
		b.Zadd().Key(keyUserPosts(author)).ScoreMember().ScoreMember(float64(pid), p).Build(),
		b.Lpush().Key(keyTimeline).Element(p).Build(),
		b.Ltrim().Key(keyTimeline).Start(0).Stop(globalTimelineN-1).Build(),
	)
	return s.wrap("create post: fanout", firstErr(s.c.DoMulti(ctx, cmds...)))
}

// posts loads the posts with the given ids, in order, with their authors'
// names, in two round trips (post hashes, then usernames), both served
// from the client-side cache when possible since posts never change.
// Ids whose post is gone are skipped.
func (s *Store) posts(ctx context.Context, pids []int64) ([]retwis.Post, error) {
	cmds := make([]rueidis.CacheableTTL, len(pids))
	for i, pid := range pids {
		cmds[i] = rueidis.CT(s.c.B().Hmget().Key(keyPost(pid)).Field("user_id", "time", "body").Cache(), s.opts.CacheTTL)
	}
	posts := make([]retwis.Post, 0, len(pids))
	authors := make([]int64, 0, len(pids))
	for i, r := range s.c.DoMultiCache(ctx, cmds...) {
		p, ok, err := parsePost(pids[i], r)
		if err != nil {
			return nil, s.wrap("read posts", err)
		}
		if ok {
			posts = append(posts, p)
			authors = append(authors, p.AuthorID)
		}
	}
	names, err := s.usernames(ctx, authors)
	if err != nil {
		return nil, err
	}
	for i := range posts {
		posts[i].Author = names[posts[i].AuthorID]
	}
	return posts, nil
}

// parsePost decodes the reply to HMGET post:<id> user_id time body. ok is
// false for a post that does not exist or is damaged.
func parsePost(pid int64, r rueidis.RedisResult) (p retwis.Post, ok bool, err error) {
	vals, err := r.ToArray()
	if err != nil {
		return p, false, err
	}
	var f [3]string
	for i := range f {
		if f[i], err = vals[i].ToString(); err != nil {
			return p, false, nil // a missing field: no such post
		}
	}
	uid, err1 := strconv.ParseInt(f[0], 10, 64)
	ts, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return p, false, nil
	}
	return retwis.Post{ID: pid, AuthorID: uid, Time: time.Unix(ts, 0), Body: f[2]}, true, nil
}
