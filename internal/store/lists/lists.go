// Package lists is the lists of accounts a user keeps (Mastodon's
// lists): a title, a replies policy and members, accounts the owner
// follows, and each list's timeline, the posts of its members.
//
// A list's timeline is fanned out on write, as home timelines are: the
// delivery job of a post reads the lists that hold its author
// (schema.Listed, a reverse index in the author's slot, one read per
// batch of posts) and pushes the post onto each (DeliverCmds); adding a
// member pushes their newest posts. A page is one range of a sorted set,
// whatever the number of members, read through posts.Store.IndexPosts
// (hidden posts, blocks, mutes, suspensions and visibility as on home),
// less the posts of accounts no longer members and the replies the
// list's policy leaves out. docs/PERFORMANCE.md ("Lists") measures it.
//
// Every key is in the owner's slot but the reverse index, in the
// member's. The package imports the online store, as the background
// packages do; the store takes an unfollowed account out of its
// follower's lists itself (store.Store.LeaveLists).
package lists

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Bounds of the lists: every post of a member costs one write per list
// that holds it, and a list's page reads its members.
const (
	MaxLists    = 100  // lists per user
	MaxMembers  = 1000 // accounts per list
	MaxTitleLen = 100  // characters of a title
	// backfillPosts is how many of a new member's newest posts go onto
	// the list's timeline when they are added.
	backfillPosts = 100
)

// The replies policies: which replies a list shows, besides a member's
// replies to themselves.
const (
	RepliesFollowed = "followed" // replies to anyone the owner follows
	RepliesList     = "list"     // replies to the list's members
	RepliesNone     = "none"     // none
)

// List is one of a user's lists.
type List struct {
	ID            int64
	Title         string
	RepliesPolicy string
}

// Store holds the lists, on the online store.
type Store struct{ st *store.Store }

// New returns a Store on st.
func New(st *store.Store) *Store { return &Store{st: st} }

// notFound is the error of a list or account that is not there, in
// Mastodon's words.
func notFound() error { return retwis.Errorf(retwis.NotFound, "Record not found") }

// CheckTitle returns title trimmed if a list may have it.
func CheckTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		return "", retwis.Errorf(retwis.Invalid, "Validation failed: Title can't be blank")
	case utf8.RuneCountInString(title) > MaxTitleLen || !utf8.ValidString(title) || strings.ContainsAny(title, "\r\n"):
		return "", retwis.Errorf(retwis.Invalid, "Validation failed: Title is too long (maximum is %d characters) or not one line", MaxTitleLen)
	}
	return title, nil
}

// CheckPolicy returns the replies policy p names ("": RepliesList).
func CheckPolicy(p string) (string, error) {
	switch p {
	case "":
		return RepliesList, nil
	case RepliesFollowed, RepliesList, RepliesNone:
		return p, nil
	}
	return "", retwis.Errorf(retwis.Invalid, "'%s' is not a valid replies_policy", p)
}

// Lists returns owner's lists, oldest first, in two round trips.
func (s *Store) Lists(ctx context.Context, owner int64) ([]List, error) {
	ids, err := s.st.C.Do(ctx, s.st.C.B().Zrange().Key(schema.Lists(owner)).Min("0").Max("-1").Build()).AsIntSlice()
	if err != nil {
		return nil, s.st.Wrap("lists", err)
	}
	return s.read(ctx, owner, ids)
}

// List returns owner's list lid, or an error of kind NotFound.
func (s *Store) List(ctx context.Context, owner, lid int64) (List, error) {
	ls, err := s.read(ctx, owner, []int64{lid})
	if err != nil {
		return List{}, err
	}
	if len(ls) == 0 {
		return List{}, notFound()
	}
	return ls[0], nil
}

// read returns owner's lists ids, through the client-side cache (one
// round trip when cold), leaving out those that are gone.
func (s *Store) read(ctx context.Context, owner int64, ids []int64) ([]List, error) {
	if len(ids) == 0 {
		return []List{}, nil
	}
	cmds := make([]rueidis.CacheableTTL, len(ids))
	for i, lid := range ids {
		cmds[i] = rueidis.CT(s.st.C.B().Hmget().Key(schema.List(owner, lid)).Field(schema.FieldListTitle, schema.FieldListReplies).Cache(), s.st.Opts.CacheTTL)
	}
	out := make([]List, 0, len(ids))
	for i, r := range s.st.CachedMulti(ctx, cmds...) {
		vals, err := r.ToArray()
		if err != nil {
			return nil, s.st.Wrap("list", err)
		}
		title, _ := vals[0].ToString()
		policy, _ := vals[1].ToString()
		if title != "" {
			out = append(out, List{ID: ids[i], Title: title, RepliesPolicy: policy})
		}
	}
	return out, nil
}

// Create makes a list of owner's, titled title, with replies policy
// policy ("": RepliesList); an owner with MaxLists lists is refused.
func (s *Store) Create(ctx context.Context, owner int64, title, policy string) (List, error) {
	l, err := checked(List{Title: title, RepliesPolicy: policy})
	if err != nil {
		return List{}, err
	}
	n, err := s.st.C.Do(ctx, s.st.C.B().Zcard().Key(schema.Lists(owner)).Build()).AsInt64()
	if err != nil {
		return List{}, s.st.Wrap("create a list", err)
	}
	if n >= MaxLists {
		return List{}, retwis.Errorf(retwis.Invalid, "You have %d lists, the most one account may have. Delete one to make another.", MaxLists)
	}
	if l.ID, err = s.st.NewID(ctx, schema.NextListID); err != nil {
		return List{}, err
	}
	b := s.st.C.B()
	err = redisconn.FirstErr(s.st.C.DoMulti(ctx, s.write(owner, l),
		b.Zadd().Key(schema.Lists(owner)).ScoreMember().ScoreMember(float64(l.ID), kernel.ID(l.ID)).Build()))
	return l, s.st.Wrap("create a list", err)
}

// checked returns l with its title and policy checked (see CheckTitle,
// CheckPolicy).
func checked(l List) (List, error) {
	var err error
	if l.Title, err = CheckTitle(l.Title); err != nil {
		return l, err
	}
	l.RepliesPolicy, err = CheckPolicy(l.RepliesPolicy)
	return l, err
}

// write returns the command that writes l's hash, noted as written.
func (s *Store) write(owner int64, l List) rueidis.Completed {
	s.st.Written.Add(schema.List(owner, l.ID))
	return s.st.C.B().Hset().Key(schema.List(owner, l.ID)).FieldValue().
		FieldValue(schema.FieldListTitle, l.Title).FieldValue(schema.FieldListReplies, l.RepliesPolicy).Build()
}

// Update changes owner's list lid: its title and replies policy, each
// unchanged if "".
func (s *Store) Update(ctx context.Context, owner, lid int64, title, policy string) (List, error) {
	l, err := s.List(ctx, owner, lid)
	if err != nil {
		return l, err
	}
	if title != "" {
		l.Title = title
	}
	if policy != "" {
		l.RepliesPolicy = policy
	}
	if l, err = checked(l); err != nil {
		return l, err
	}
	return l, s.st.Wrap("update a list", s.st.C.Do(ctx, s.write(owner, l)).Error())
}

// Delete deletes owner's list lid: its members leave it (their reverse
// index too), and its keys go.
func (s *Store) Delete(ctx context.Context, owner, lid int64) error {
	members, err := s.Members(ctx, owner, lid)
	if err != nil {
		return err
	}
	if err := s.leave(ctx, owner, lid, members); err != nil {
		return err
	}
	b := s.st.C.B()
	s.st.Written.Add(schema.List(owner, lid), schema.ListMembers(owner, lid))
	err = redisconn.FirstErr(s.st.C.DoMulti(ctx,
		b.Zrem().Key(schema.Lists(owner)).Member(kernel.ID(lid)).Build(),
		b.Del().Key(schema.List(owner, lid), schema.ListMembers(owner, lid), schema.ListPosts(owner, lid)).Build()))
	return s.st.Wrap("delete a list", err)
}

// Members returns the accounts in owner's list lid, newest account
// first, or an error of kind NotFound if there is no such list.
func (s *Store) Members(ctx context.Context, owner, lid int64) ([]int64, error) {
	if _, err := s.List(ctx, owner, lid); err != nil {
		return nil, err
	}
	ids, err := s.members(ctx, owner, lid)
	slices.Reverse(ids)
	return ids, err
}

// members returns the accounts in owner's list lid, in ascending order,
// through the client-side cache.
func (s *Store) members(ctx context.Context, owner, lid int64) ([]int64, error) {
	ids, err := s.st.Cached(ctx, s.st.C.B().Smembers().Key(schema.ListMembers(owner, lid)).Cache(), s.st.Opts.CacheTTL).AsIntSlice()
	if err != nil {
		return nil, s.st.Wrap("list members", err)
	}
	slices.Sort(ids)
	return ids, nil
}
