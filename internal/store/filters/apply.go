package filters

import (
	"context"
	"time"

	"github.com/retwis/retwis"
)

// Applied is what a user's filters made of a list of posts: the posts
// still shown, and for each shown post a warn filter matched (by the id
// of the post shown, a boost's own), the matches.
type Applied struct {
	Posts   []retwis.Post
	Matches map[int64][]Match
}

// Apply applies uid's filters of context to posts, as a list read in
// that context shows them, to viewer (a visitor: the zero User): a post
// a hide filter matches is left out, one a warn filter matches is kept
// with its matches. The viewer's own posts are never filtered. Nothing
// is read for a viewer who never made a filter (retwis.User.Filtered,
// read with their authentication), nor for a visitor; warm, no round
// trip either (see Set).
func (s *Store) Apply(ctx context.Context, viewer retwis.User, context string, posts []retwis.Post) (Applied, error) {
	out := Applied{Posts: posts}
	if viewer.ID == 0 || !viewer.Filtered || len(posts) == 0 {
		return out, nil
	}
	set, err := s.Set(ctx, viewer.ID)
	if err != nil {
		return out, err
	}
	return set.Apply(viewer.ID, context, posts, time.Now()), nil
}

// Apply applies the filters of set that apply in context at now to
// posts, read by uid (see Store.Apply).
func (set *Set) Apply(uid int64, context string, posts []retwis.Post, now time.Time) Applied {
	out := Applied{Posts: posts}
	active := set.in(context, now)
	if len(active) == 0 {
		return out
	}
	var kept []retwis.Post // a copy of posts, once one is left out
	for i, p := range posts {
		if p.AuthorID == uid || (p.Reblog != nil && p.Reblog.AuthorID == uid) {
			kept = keep(kept, p)
			continue
		}
		matches := match(active, p)
		if hidden(matches) {
			if kept == nil {
				kept = append(make([]retwis.Post, 0, len(posts)), posts[:i]...)
			}
			continue
		}
		if len(matches) > 0 {
			if out.Matches == nil {
				out.Matches = map[int64][]Match{}
			}
			out.Matches[p.ID] = matches
		}
		kept = keep(kept, p)
	}
	if kept != nil {
		out.Posts = kept
	}
	return out
}

// keep appends p to kept, once kept is a copy (not nil).
func keep(kept []retwis.Post, p retwis.Post) []retwis.Post {
	if kept == nil {
		return nil
	}
	return append(kept, p)
}

// hidden reports whether one of matches is of a hide filter.
func hidden(matches []Match) bool {
	for _, m := range matches {
		if m.Filter.Action == Hide {
			return true
		}
	}
	return false
}

// Veil applies the filters of set that apply in context at now to page,
// read by uid, as the pages show it: the posts a hide filter matches
// left out, those a warn filter matches veiled behind the first one's
// title (retwis.Page.Veiled).
func (set *Set) Veil(uid int64, context string, page *retwis.Page, now time.Time) {
	a := set.Apply(uid, context, page.Posts, now)
	page.Posts = a.Posts
	for pid, matches := range a.Matches {
		if page.Veiled == nil {
			page.Veiled = map[int64]string{}
		}
		page.Veiled[pid] = matches[0].Filter.Title
	}
}

// Hides reports whether a hide filter of set that applies in context at
// now matches p, read by uid.
func (set *Set) Hides(uid int64, context string, p retwis.Post, now time.Time) bool {
	return len(set.Apply(uid, context, []retwis.Post{p}, now).Posts) == 0
}
