package lists

import (
	"context"
	"slices"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/index"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Timeline returns a page of the timeline of owner's list lid, by
// cursor, newest first, as owner sees it in a timeline (what owner does
// not see is left out, as on home), less the posts of accounts that are
// no longer members and the replies the list's policy leaves out; an
// error of kind NotFound if there is no such list.
func (s *Store) Timeline(ctx context.Context, owner, lid int64, c retwis.Cursor, n int) (retwis.Page, error) {
	l, err := s.List(ctx, owner, lid)
	if err != nil {
		return retwis.Page{}, err
	}
	members, err := s.members(ctx, owner, lid)
	if err != nil {
		return retwis.Page{}, err
	}
	return s.st.IndexPosts(ctx, owner, schema.ListPosts(owner, lid), c, n, func(ctx context.Context, posts []retwis.Post) ([]retwis.Post, error) {
		return s.shown(ctx, owner, l, members, posts)
	})
}

// Shows reports whether owner's list lid shows post p (as Timeline
// would, but for what owner does not see): for the live stream of a
// list.
func (s *Store) Shows(ctx context.Context, owner, lid int64, p retwis.Post) (bool, error) {
	l, err := s.List(ctx, owner, lid)
	if err != nil {
		return false, err
	}
	members, err := s.members(ctx, owner, lid)
	if err != nil {
		return false, err
	}
	kept, err := s.shown(ctx, owner, l, members, []retwis.Post{p})
	return len(kept) == 1, err
}

// shown returns the posts of posts that owner's list l, of members
// (ascending), shows: those of its members, not direct, and of the
// replies those its policy lets through (see replyShown).
func (s *Store) shown(ctx context.Context, owner int64, l List, members []int64, posts []retwis.Post) ([]retwis.Post, error) {
	followed, err := s.followedRepliedTo(ctx, owner, l, posts)
	if err != nil {
		return nil, err
	}
	member := func(uid int64) bool { _, in := slices.BinarySearch(members, uid); return in }
	kept := posts[:0]
	for _, p := range posts {
		if member(p.AuthorID) && p.Visibility != retwis.Direct && replyShown(owner, l.RepliesPolicy, p, member, followed) {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// replyShown reports whether a list of owner's with policy shows p, if a
// reply: a reply to its own author always, else as policy says.
func replyShown(owner int64, policy string, p retwis.Post, member func(int64) bool, followed map[int64]bool) bool {
	to := p.ReplyToID
	if p.InReplyTo == 0 || to == p.AuthorID {
		return true
	}
	switch policy {
	case RepliesList:
		return to == owner || member(to)
	case RepliesFollowed:
		return to == owner || followed[to]
	}
	return false
}

// followedRepliedTo returns which of the accounts posts reply to owner
// follows, for a list whose policy is RepliesFollowed (nil for another),
// in one read through the client-side cache.
func (s *Store) followedRepliedTo(ctx context.Context, owner int64, l List, posts []retwis.Post) (map[int64]bool, error) {
	var to []int64
	for _, p := range posts {
		if p.InReplyTo != 0 && p.ReplyToID != 0 {
			to = append(to, p.ReplyToID)
		}
	}
	if l.RepliesPolicy != RepliesFollowed || len(to) == 0 {
		return nil, nil
	}
	scores, err := s.st.Cached(ctx, s.st.C.B().Zmscore().Key(schema.Following(owner)).Member(kernel.IDs(to)...).Cache(), s.st.Opts.CacheTTL).ToArray()
	if err != nil {
		return nil, s.st.Wrap("list: follows", err)
	}
	followed := map[int64]bool{}
	for i, sc := range scores {
		if !sc.IsNil() {
			followed[to[i]] = true
		}
	}
	return followed, nil
}

// DeliverCmds returns what the delivery of posts writes to lists: each
// post that is not direct pushed onto the timeline of every list that
// holds its author, read from the authors' reverse indexes in one round
// trip (none without posts).
func (s *Store) DeliverCmds(ctx context.Context, posts []index.Post) (rueidis.Commands, error) {
	var authors []int64
	for _, p := range posts {
		if p.Visibility != retwis.Direct && p.ReblogOf == 0 && !slices.Contains(authors, p.Author) {
			authors = append(authors, p.Author)
		}
	}
	if len(authors) == 0 {
		return nil, nil
	}
	reads := make(rueidis.Commands, len(authors))
	for i, a := range authors {
		reads[i] = s.st.C.B().Smembers().Key(schema.Listed(a)).Build()
	}
	var cmds rueidis.Commands
	for i, r := range s.st.C.DoMulti(ctx, reads...) {
		held, err := r.AsStrSlice()
		if err != nil {
			return nil, s.st.Wrap("delivery: lists", err)
		}
		pids := postsOf(posts, authors[i])
		for _, m := range held {
			if owner, lid, ok := schema.ParseListedMember(m); ok {
				cmds = append(cmds, index.ListPushCmds(s.st.C, owner, lid, pids...)...)
			}
		}
	}
	return cmds, nil
}

// postsOf returns the ids of the posts of posts by author that go onto
// lists.
func postsOf(posts []index.Post, author int64) []int64 {
	var pids []int64
	for _, p := range posts {
		if p.Author == author && p.Visibility != retwis.Direct && p.ReblogOf == 0 {
			pids = append(pids, p.ID)
		}
	}
	return pids
}
