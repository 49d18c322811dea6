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
	return s.collect(ctx, reader{id: viewer}, c, n, source{key: schema.Tag(f)}, func(ctx context.Context, c retwis.Cursor, want int) ([]int64, error) {
		ids, err := s.indexPage(ctx, schema.Tag(f), c, want)
		return ids, s.Wrap("tag", err)
	}, nil)
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
