package interact

import (
	"context"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// bookmarks are the bookmarks' marks, bookmarks:{<uid>}: private, with
// nothing on the post's side.
var bookmarks = markKind{
	key:  schema.Bookmarks,
	mark: func(p *retwis.Post) *bool { return &p.Bookmarked },
}

// Bookmark makes uid bookmark post pid, which uid must see, in one
// round trip once the rate limit passed and the post is read, and
// returns the post as uid sees it then. Nobody is told.
func (s *Store) Bookmark(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	return s.setMark(ctx, bookmarks, uid, pid, true)
}

// Unbookmark takes back uid's bookmark of post pid.
func (s *Store) Unbookmark(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	return s.setMark(ctx, bookmarks, uid, pid, false)
}

// Bookmarks returns a page of the posts uid bookmarked, the newest
// bookmark first; the cursor names a post of the list.
func (s *Store) Bookmarks(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.markedPosts(ctx, bookmarks, uid, uid, c, n)
}
