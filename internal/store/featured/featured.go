// Package featured holds the tags users feature on their profiles
// (Mastodon's featured tags): a sorted set a user, schema.FeaturedTags,
// with each tag's use read from the tag's own indexes. It is its own
// package, above the online store, because the store's top layer is
// full (docs/ARCHITECTURE.md).
package featured

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
)

// Max is how many tags a user may feature, as Mastodon's
// max_featured_tags.
const Max = 10

// Tag is a featured tag: its id (when it was featured, unix
// microseconds), its name as first written, and its use from the tag's
// indexes: how many posts have it, and the day (UTC) of the latest
// (zero: none).
type Tag struct {
	ID       int64
	Name     string
	Statuses int64
	Last     time.Time
}

// Feature features tag (with or without its #) on uid's profile and
// returns it; featuring it
// again changes nothing. A tag that is not one is NotFound; a user
// featuring Max tags already is refused (Invalid). Two round trips,
// then Of's.
func Feature(ctx context.Context, st *store.Store, uid int64, tag string) (Tag, error) {
	tag = strings.TrimPrefix(tag, "#")
	f, err := posts.FoldedTag(tag)
	if err != nil {
		return Tag{}, retwis.Errorf(retwis.Invalid, "#%s is not a tag.", tag)
	}
	b, key := st.C.B(), schema.FeaturedTags(uid)
	res := st.C.DoMulti(ctx, b.Zcard().Key(key).Build(), b.Zscore().Key(key).Member(f).Build())
	n, err := res[0].AsInt64()
	if err != nil {
		return Tag{}, st.Wrap("feature a tag", err)
	}
	if _, err := res[1].AsFloat64(); err != nil && n >= Max {
		return Tag{}, retwis.Errorf(retwis.Invalid, "You may feature at most %d tags.", Max)
	}
	st.Written.Add(key)
	err = st.C.Do(ctx, b.Zadd().Key(key).Nx().ScoreMember().ScoreMember(float64(time.Now().UnixMicro()), f).Build()).Error()
	if err != nil {
		return Tag{}, st.Wrap("feature a tag", err)
	}
	all, err := Of(ctx, st, uid)
	for _, t := range all {
		if retwis.FoldTag(t.Name) == f {
			return t, err
		}
	}
	return Tag{Name: tag}, err
}

// Unfeature takes the featured tag id off uid's profile: NotFound if
// uid features none of that id. One round trip.
func Unfeature(ctx context.Context, st *store.Store, uid, id int64) error {
	at := strconv.FormatInt(id, 10)
	st.Written.Add(schema.FeaturedTags(uid))
	n, err := st.C.Do(ctx, st.C.B().Zremrangebyscore().Key(schema.FeaturedTags(uid)).Min(at).Max(at).Build()).AsInt64()
	if err != nil {
		return st.Wrap("unfeature a tag", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "There is no such featured tag.")
	}
	return nil
}

// Of returns the tags uid features, the earliest featured first, with
// their use: two round trips (the tags through the client-side cache,
// then their indexes).
func Of(ctx context.Context, st *store.Store, uid int64) ([]Tag, error) {
	b := st.C.B()
	entries, err := st.Cached(ctx, b.Zrange().Key(schema.FeaturedTags(uid)).Min("0").Max("-1").Withscores().Cache(), st.Opts.CacheTTL).AsZScores()
	if err != nil || len(entries) == 0 {
		return nil, st.Wrap("featured tags", err)
	}
	cmds := make(rueidis.Commands, 0, 3*len(entries))
	for _, e := range entries {
		cmds = append(cmds, b.Hget().Key(schema.TagInfo(e.Member)).Field(schema.FieldTagName).Build(),
			b.Zcard().Key(schema.Tag(e.Member)).Build(),
			b.Zrevrangebylex().Key(schema.TagDays(e.Member)).Max("+").Min("-").Limit(0, 1).Build())
	}
	res := st.C.DoMulti(ctx, cmds...)
	out := make([]Tag, len(entries))
	for i, e := range entries {
		out[i] = Tag{ID: int64(e.Score), Name: e.Member}
		if name, err := res[3*i].ToString(); err == nil {
			out[i].Name = name
		}
		count, err := res[3*i+1].AsInt64()
		last, err2 := res[3*i+2].AsStrSlice()
		if err != nil || err2 != nil {
			return nil, st.Wrap("featured tags: use", err)
		}
		out[i].Statuses = count
		if len(last) == 1 {
			day, _, _ := strings.Cut(last[0], ":")
			out[i].Last, _ = time.Parse("20060102", day)
		}
	}
	return out, nil
}

// suggestionScan is how many of a user's latest posts the suggestions
// of tags to feature look at.
const suggestionScan = 40

// Suggestions returns up to n tags uid used lately (in its latest
// posts, as written there, the most recent first) that it does not
// feature yet: two round trips.
func Suggestions(ctx context.Context, st *store.Store, uid int64, n int) ([]string, error) {
	b := st.C.B()
	res := st.C.DoMulti(ctx, b.Zrange().Key(schema.UserPosts(uid)).Min("0").Max(strconv.Itoa(suggestionScan-1)).Rev().Build(),
		b.Zrange().Key(schema.FeaturedTags(uid)).Min("0").Max("-1").Build())
	pids, err := res[0].AsIntSlice()
	featured, err2 := res[1].AsStrSlice()
	if err != nil || err2 != nil || len(pids) == 0 {
		return nil, st.Wrap("tags to feature", cmp.Or(err, err2))
	}
	cmds := make(rueidis.Commands, len(pids))
	for i, pid := range pids {
		cmds[i] = b.Hget().Key(schema.Post(pid)).Field(schema.FieldTags).Build()
	}
	seen := map[string]bool{}
	for _, f := range featured {
		seen[f] = true
	}
	var out []string
	for _, r := range st.C.DoMulti(ctx, cmds...) {
		tags, _ := r.ToString() // none, or a post gone meanwhile
		for _, t := range strings.Fields(tags) {
			if f := retwis.FoldTag(t); len(out) < n && !seen[f] {
				seen[f], out = true, append(out, t)
			}
		}
	}
	return out, nil
}
