package posts

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// FoldedTag checks a tag from a request (a whole tag, as
// retwis.Entities finds them: no braces or colons can reach a key) and
// returns its folded form.
func FoldedTag(tag string) (string, error) {
	es := retwis.Entities("#" + tag)
	if len(tag) > 400 || len(es) != 1 || es[0].Kind != retwis.EntityTag || es[0].End != len(tag)+1 {
		return "", retwis.Errorf(retwis.NotFound, "There is no such tag.")
	}
	return retwis.FoldTag(tag), nil
}

// TagPosts returns a page of the posts with tag (matched ignoring case
// and accents), newest first, by cursor down to the first, as viewer
// (0: logged out) sees them.
func (s *Store) TagPosts(ctx context.Context, viewer int64, tag string, c retwis.Cursor, n int) (retwis.Page, error) {
	f, err := FoldedTag(tag)
	if err != nil {
		return retwis.Page{}, err
	}
	return s.IndexPosts(ctx, viewer, schema.Tag(f), c, n, nil)
}

// IndexPosts returns a page of key's posts (post ids by id: a tag, a list), by cursor, as viewer
// sees them in a timeline, less those keep (if not nil) leaves out; ids of gone posts leave key.
func (s *Store) IndexPosts(ctx context.Context, viewer int64, key string, c retwis.Cursor, n int, keep func(context.Context, []retwis.Post) ([]retwis.Post, error)) (retwis.Page, error) {
	return s.collect(ctx, reader{id: viewer}, c, n, source{key: key}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		ids, err := s.indexPage(ctx, key, c, want)
		return ids, s.Wrap("timeline", err)
	}, keep)
}

// TagDayPosts returns a page of the posts with tag on day (UTC), newest
// first, by cursor (Before only), from the tag's composite index of
// posts by day, as viewer (0: logged out) sees them.
func (s *Store) TagDayPosts(ctx context.Context, viewer int64, tag string, day time.Time, c retwis.Cursor, n int) (retwis.Page, error) {
	f, err := FoldedTag(tag)
	if err != nil {
		return retwis.Page{}, err
	}
	d := schema.Day(day)
	return s.collect(ctx, reader{id: viewer}, retwis.Cursor{Before: c.Before}, n, source{}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		upper := "[" + d + ":\xff"
		if c.Before > 0 {
			upper = "(" + schema.TagDay(day.Unix(), c.Before)
		}
		members, err := s.C.Do(ctx, s.C.B().Zrevrangebylex().Key(schema.TagDays(f)).Max(upper).Min("["+d+":").
			Limit(0, int64(want)).Build()).AsStrSlice()
		if err != nil {
			return nil, s.Wrap("tag day", err)
		}
		ids := make([]int64, 0, len(members))
		for _, m := range members {
			_, p, _ := strings.Cut(m, ":")
			if n, err := strconv.ParseInt(p, 10, 64); err == nil {
				ids = append(ids, n)
			}
		}
		return ids, nil
	}, nil)
}
