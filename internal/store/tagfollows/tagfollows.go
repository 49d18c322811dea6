// Package tagfollows holds the follows of hashtags: a user follows a
// tag (Follow, Unfollow), lists the tags they follow (Followed) and
// whether they follow some (Following); a public post with a tag reaches
// the home timelines of the tag's followers through its delivery job,
// which asks Audiences whom it goes to besides its author's followers.
//
// Each follow is written twice: in the user's set of tags followed
// (schema.TagsFollowed) and in the tag's set of followers
// (schema.TagFollowers, in the tag's slot, so that a delivery reads a
// tag's followers from one key). It is its own package, above the online
// store, because the store's top layer is full (docs/ARCHITECTURE.md):
// the API, the pages, delivery and deletion construct it from the
// *store.Store they hold.
package tagfollows

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxFollowed is how many tags one user may follow.
const MaxFollowed = 500

// Store holds the follows of tags, on the online store.
type Store struct{ st *store.Store }

// New returns the follows of tags of st's database.
func New(st *store.Store) *Store { return &Store{st: st} }

// Followed is a tag a user follows.
type Followed struct {
	Name string // the tag as first written (folded if nobody used it yet)
	ID   int64  // when it was followed, unix microseconds: its place in the list
}

// Follow makes uid follow tag (ignoring case and accents) and returns the
// tag as first written; following it again changes nothing. A user
// following MaxFollowed tags already is refused. Two round trips (a
// read, then both sides of the follow in one pipeline); a follow that
// fails midway is mended by following again.
func (s *Store) Follow(ctx context.Context, uid int64, tag string) (string, error) {
	f, err := posts.FoldedTag(tag)
	if err != nil {
		return "", err
	}
	b := s.st.C.B()
	res := s.st.C.DoMulti(ctx, b.Zcard().Key(schema.TagsFollowed(uid)).Build(),
		b.Zscore().Key(schema.TagsFollowed(uid)).Member(f).Build(), b.Hget().Key(schema.TagInfo(f)).Field(schema.FieldTagName).Build())
	n, err := res[0].AsInt64()
	if err != nil {
		return "", s.st.Wrap("follow tag", err)
	}
	_, err = res[1].AsFloat64()
	if followed := err == nil; !followed && n >= MaxFollowed {
		return "", retwis.Errorf(retwis.Invalid, "You may follow at most %d tags.", MaxFollowed)
	}
	name := nameOr(res[2], tag)
	at := float64(time.Now().UnixMicro())
	s.st.Written.Add(schema.TagsFollowed(uid), schema.TagFollowers(f))
	err = redisconn.FirstErr(s.st.C.DoMulti(ctx,
		b.Zadd().Key(schema.TagFollowers(f)).Nx().ScoreMember().ScoreMember(at, kernel.ID(uid)).Build(),
		b.Zadd().Key(schema.TagsFollowed(uid)).Nx().ScoreMember().ScoreMember(at, f).Build()))
	return name, s.st.Wrap("follow tag", err)
}

// nameOr returns the tag's name as first written from r (an HGET of its
// info), or tag if nobody used it yet.
func nameOr(r rueidis.RedisResult, tag string) string {
	if name, err := r.ToString(); err == nil && name != "" {
		return name
	}
	return tag
}

// Unfollow ends uid's follow of tag, if any, and returns the tag as
// first written: one round trip.
func (s *Store) Unfollow(ctx context.Context, uid int64, tag string) (string, error) {
	f, err := posts.FoldedTag(tag)
	if err != nil {
		return "", err
	}
	b := s.st.C.B()
	s.st.Written.Add(schema.TagsFollowed(uid), schema.TagFollowers(f))
	res := s.st.C.DoMulti(ctx, b.Zrem().Key(schema.TagsFollowed(uid)).Member(f).Build(),
		b.Zrem().Key(schema.TagFollowers(f)).Member(kernel.ID(uid)).Build(),
		b.Hget().Key(schema.TagInfo(f)).Field(schema.FieldTagName).Build())
	if err := redisconn.FirstErr(res[:2]); err != nil {
		return "", s.st.Wrap("unfollow tag", err)
	}
	return nameOr(res[2], tag), nil
}

// Following reports, for each of tags, whether uid follows it: one round
// trip (none for no user or no tags).
func (s *Store) Following(ctx context.Context, uid int64, tags []string) ([]bool, error) {
	out := make([]bool, len(tags))
	if uid == 0 || len(tags) == 0 {
		return out, nil
	}
	folded := make([]string, len(tags))
	for i, t := range tags {
		folded[i] = retwis.FoldTag(t)
	}
	scores, err := s.st.C.Do(ctx, s.st.C.B().Zmscore().Key(schema.TagsFollowed(uid)).Member(folded...).Build()).ToArray()
	if err != nil {
		return nil, s.st.Wrap("tags followed", err)
	}
	for i, sc := range scores {
		out[i] = !sc.IsNil()
	}
	return out, nil
}

// Followed returns a page of the tags uid follows, the latest followed
// first, by c (Before, After: a Followed.ID), at most n, and whether
// older ones are left: two round trips.
func (s *Store) Followed(ctx context.Context, uid int64, c retwis.Cursor, n int) ([]Followed, bool, error) {
	b := s.st.C.B()
	hi, lo := "+inf", "-inf"
	if c.Before > 0 {
		hi = "(" + strconv.FormatInt(c.Before, 10)
	}
	if c.After > 0 {
		lo = "(" + strconv.FormatInt(c.After, 10)
	}
	cmd := b.Zrange().Key(schema.TagsFollowed(uid)).Min(hi).Max(lo).Byscore().Rev().Limit(0, int64(n+1)).Withscores().Build()
	if c.After > 0 && c.Before == 0 { // the page just newer: the oldest of those newer
		cmd = b.Zrange().Key(schema.TagsFollowed(uid)).Min(lo).Max(hi).Byscore().Limit(0, int64(n+1)).Withscores().Build()
	}
	entries, err := s.st.C.Do(ctx, cmd).AsZScores()
	if err != nil {
		return nil, false, s.st.Wrap("tags followed", err)
	}
	more := len(entries) > n
	entries = entries[:min(len(entries), n)]
	if c.After > 0 && c.Before == 0 {
		slices.Reverse(entries)
		more = true // older ones are those the cursor came from
	}
	return s.named(ctx, entries, more)
}

// named returns the Followed of entries (folded tags and their scores),
// with their names as first written, read in one round trip.
func (s *Store) named(ctx context.Context, entries []rueidis.ZScore, more bool) ([]Followed, bool, error) {
	if len(entries) == 0 {
		return nil, more, nil
	}
	b := s.st.C.B()
	cmds := make(rueidis.Commands, len(entries))
	for i, e := range entries {
		cmds[i] = b.Hget().Key(schema.TagInfo(e.Member)).Field(schema.FieldTagName).Build()
	}
	out := make([]Followed, len(entries))
	for i, r := range s.st.C.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil && !rueidis.IsRedisNil(err) {
			return nil, false, s.st.Wrap("tags followed: names", err)
		}
		out[i] = Followed{Name: nameOr(r, entries[i].Member), ID: int64(entries[i].Score)}
	}
	return out, more, nil
}
