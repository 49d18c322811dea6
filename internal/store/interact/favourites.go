package interact

import (
	"context"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// favourites are the favourites' marks: a user's favourites:{<uid>},
// whose post side (who favourited it, its count, the author's
// notification) the delivery job schema.JobFavourite brings in line.
var favourites = markKind{
	key:  schema.Favourites,
	mark: func(p *retwis.Post) *bool { return &p.Favourited },
	job:  schema.JobFavourite,
}

// Favourite makes uid favourite post pid, which uid must see, and
// returns the post as uid sees it then, counted. The favourite is one
// round trip once the rate limit passed and the post is read (through
// the client-side cache): uid's mark, uid added to who favourited the
// post and counted, and a delivery job, which makes sure of the count
// and notifies the author, once however often uid takes it back and
// favourites it again (see delivery's favourite job). Favouriting again
// changes nothing.
func (s *Store) Favourite(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	return s.setMark(ctx, favourites, uid, pid, true)
}

// Unfavourite takes back uid's favourite of post pid, as Favourite
// gives it (the author's notification stays, as in Mastodon).
func (s *Store) Unfavourite(ctx context.Context, uid, pid int64) (retwis.Post, error) {
	return s.setMark(ctx, favourites, uid, pid, false)
}

// Favourites returns a page of the posts uid favourited, the newest
// favourite first; the cursor names a post of the list.
func (s *Store) Favourites(ctx context.Context, uid int64, c retwis.Cursor, n int) (retwis.Page, error) {
	return s.markedPosts(ctx, favourites, uid, uid, c, n)
}

// Favouriters returns a page of who favourited post pid, which viewer
// must see, the most recent first, each with when; the cursor names a
// user of the list, as for Followers.
func (s *Store) Favouriters(ctx context.Context, viewer, pid int64, c retwis.Cursor, n int) (retwis.FollowPage, error) {
	if _, err := s.Post(ctx, viewer, pid); err != nil {
		return retwis.FollowPage{}, err
	}
	page, err := s.UserPage(ctx, schema.FavouritedBy(pid), c, n)
	for i := range page.Follows { // scored by unix ms, not seconds as follows are
		f := &page.Follows[i]
		f.Since = time.UnixMilli(f.Since.Unix())
	}
	return page, err
}

// FavouriterNames returns the names of up to n of the accounts that
// favourited post pid, which viewer must see, the most recent first.
func (s *Store) FavouriterNames(ctx context.Context, viewer, pid int64, n int) ([]string, error) {
	page, err := s.Favouriters(ctx, viewer, pid, retwis.Cursor{}, n)
	names := make([]string, len(page.Follows))
	for i, f := range page.Follows {
		names[i] = f.User.Username
	}
	return names, err
}
