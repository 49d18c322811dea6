package interact

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Conversation is one of a user's direct conversations: a thread of
// direct posts (index.ConversationOf) as that user's list holds it.
type Conversation struct {
	// ID is the conversation's: the root of its thread.
	ID int64
	// Newest is the id of its newest post, which orders the list (the
	// cursor of its pages); Last is the newest the reader sees, with the
	// users it is between (With: its author and those it mentions, but
	// the reader).
	Newest int64
	Last   retwis.Post
	With   []int64
	// Unread is whether a post newer than the reader last read came, of
	// someone else's.
	Unread bool
}

// ConversationPage is a page of a user's conversations, newest activity
// first.
type ConversationPage struct {
	Conversations []Conversation
	Newer, Older  bool // conversations exist before and after this page
}

// ErrNoConversation is the error of a conversation not in the user's
// list.
var ErrNoConversation = retwis.Errorf(retwis.NotFound, "No such conversation.")

// Conversations returns a page of uid's direct conversations, newest
// activity first, by cursor (the ids of their newest posts): the list,
// then their newest posts and how far uid read them, then those posts
// through the read path, which leaves out the deleted and those uid does
// not see (a block, a mute, a suspension; with them their
// conversations): three calls, through the client-side cache for a first
// page (none when warm). Reading marks nothing read.
func (s *Store) Conversations(ctx context.Context, uid int64, c retwis.Cursor, n int) (ConversationPage, error) {
	zs, err := s.conversationsPage(ctx, uid, c, n+1)
	if err != nil {
		return ConversationPage{}, s.Wrap("read conversations", err)
	}
	page := ConversationPage{Newer: c.Before > 0, Older: c.After > 0}
	if len(zs) > n {
		zs = zs[:n]
		page.Newer, page.Older = page.Newer || c.After > 0, page.Older || c.After == 0
	}
	if c.After > 0 {
		slices.Reverse(zs)
	}
	convs := make([]Conversation, 0, len(zs))
	for _, z := range zs {
		if id, err := strconv.ParseInt(z.Member, 10, 64); err == nil {
			convs = append(convs, Conversation{ID: id, Newest: int64(z.Score)})
		}
	}
	page.Conversations, err = s.lastOf(ctx, uid, convs)
	return page, err
}

// conversationsPage reads up to n of uid's conversations with their
// scores for cursor c: descending, except for c.After, ascending from
// the cursor; a first page, the one most read, through the client-side
// cache.
func (s *Store) conversationsPage(ctx context.Context, uid int64, cur retwis.Cursor, n int) ([]rueidis.ZScore, error) {
	b, key := s.C.B(), schema.Conversations(uid)
	switch {
	case cur.After > 0:
		return s.C.Do(ctx, b.Zrangebyscore().Key(key).Min("("+kernel.ID(cur.After)).Max("+inf").Withscores().Limit(0, int64(n)).Build()).AsZScores()
	case cur.Before > 0:
		return s.C.Do(ctx, b.Zrevrangebyscore().Key(key).Max("("+kernel.ID(cur.Before)).Min("-inf").Withscores().Limit(0, int64(n)).Build()).AsZScores()
	}
	return s.Cached(ctx, b.Zrevrange().Key(key).Start(0).Stop(int64(n-1)).Withscores().Cache(), s.Opts.CacheTTL).AsZScores()
}

// Conversation returns uid's conversation conv, or ErrNoConversation
// when it is not in uid's list or uid sees none of its posts.
func (s *Store) Conversation(ctx context.Context, uid, conv int64) (Conversation, error) {
	score, err := s.C.Do(ctx, s.C.B().Zscore().Key(schema.Conversations(uid)).Member(kernel.ID(conv)).Build()).AsFloat64()
	if rueidis.IsRedisNil(err) {
		return Conversation{}, ErrNoConversation
	}
	if err != nil {
		return Conversation{}, s.Wrap("read conversation", err)
	}
	convs, err := s.lastOf(ctx, uid, []Conversation{{ID: conv, Newest: int64(score)}})
	if err != nil || len(convs) == 0 {
		return Conversation{}, cmp.Or(err, error(ErrNoConversation))
	}
	return convs[0], nil
}

// ConversationAt returns uid's conversation whose newest post is pid,
// as the live stream of direct posts tells of it when pid reaches uid;
// ErrNoConversation when none is (pid is no direct post to uid, or a
// newer one came since, which is told of in its turn). Two calls in
// uid's slot, then the post's read.
func (s *Store) ConversationAt(ctx context.Context, uid, pid int64) (Conversation, error) {
	id := kernel.ID(pid)
	convs, err := s.C.Do(ctx, s.C.B().Zrange().Key(schema.Conversations(uid)).Min(id).Max(id).Byscore().Limit(0, 1).Build()).AsStrSlice()
	if err != nil {
		return Conversation{}, s.Wrap("read conversation", err)
	}
	if len(convs) == 0 {
		return Conversation{}, ErrNoConversation
	}
	conv, err := strconv.ParseInt(convs[0], 10, 64)
	if err != nil {
		return Conversation{}, s.Wrap("read conversation", err)
	}
	return s.Conversation(ctx, uid, conv)
}

// lastOf returns convs with their newest posts as uid sees them and
// whether uid read them, leaving out those of which uid sees none: one
// call in uid's slot, then the posts' read, both through the client-side
// cache.
func (s *Store) lastOf(ctx context.Context, uid int64, convs []Conversation) ([]Conversation, error) {
	if len(convs) == 0 {
		return nil, nil
	}
	b := s.C.B()
	cmds := make([]rueidis.CacheableTTL, 0, len(convs)+1)
	members := make([]string, len(convs))
	for i, c := range convs {
		members[i] = kernel.ID(c.ID)
		cmds = append(cmds, rueidis.CT(b.Zrevrange().Key(schema.Conversation(uid, c.ID)).Start(0).Stop(0).Cache(), s.Opts.CacheTTL))
	}
	cmds = append(cmds, rueidis.CT(b.Zmscore().Key(schema.ConversationsRead(uid)).Member(members...).Cache(), s.Opts.CacheTTL))
	res := s.CachedMulti(ctx, cmds...)
	read, err := res[len(convs)].ToArray()
	if err != nil {
		return nil, s.Wrap("read conversations", err)
	}
	lasts := make([]int64, len(convs))
	for i := range convs {
		ids, err := res[i].AsIntSlice()
		if err != nil {
			return nil, s.Wrap("read conversations", err)
		}
		if len(ids) > 0 {
			lasts[i] = ids[0]
		}
		upTo, _ := read[i].AsFloat64() // nil: never read
		convs[i].Unread = float64(convs[i].Newest) > upTo
	}
	return s.withLast(ctx, uid, convs, lasts)
}

// withLast returns convs with the posts lasts (the newest of each, 0 for
// none) that uid sees, leaving out the conversations of which uid sees
// no newest post.
func (s *Store) withLast(ctx context.Context, uid int64, convs []Conversation, lasts []int64) ([]Conversation, error) {
	posts, err := s.Posts(ctx, uid, slices.DeleteFunc(slices.Clone(lasts), func(id int64) bool { return id == 0 }))
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]retwis.Post, len(posts))
	for _, p := range posts {
		byID[p.ID] = p
	}
	out := make([]Conversation, 0, len(posts))
	for i, c := range convs {
		last, ok := byID[lasts[i]]
		if !ok {
			continue
		}
		c.Last = last
		for _, u := range append([]int64{last.AuthorID}, last.MentionIDs...) {
			if u != uid && !slices.Contains(c.With, u) {
				c.With = append(c.With, u)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// MarkConversationsRead marks convs (as Conversations returned them)
// read by uid, up to their newest posts: one round trip.
func (s *Store) MarkConversationsRead(ctx context.Context, uid int64, convs []Conversation) error {
	if len(convs) == 0 {
		return nil
	}
	cmd := s.C.B().Zadd().Key(schema.ConversationsRead(uid)).Gt().ScoreMember()
	for _, c := range convs {
		cmd = cmd.ScoreMember(float64(c.Newest), kernel.ID(c.ID))
	}
	s.Written.Add(schema.ConversationsRead(uid))
	return s.Wrap("mark conversations read", s.C.Do(ctx, cmd.Build()).Error())
}

// ReadConversation marks uid's conversation conv read and returns it
// (ErrNoConversation when it is not in uid's list).
func (s *Store) ReadConversation(ctx context.Context, uid, conv int64) (Conversation, error) {
	c, err := s.Conversation(ctx, uid, conv)
	if err != nil {
		return c, err
	}
	if err := s.MarkConversationsRead(ctx, uid, []Conversation{c}); err != nil {
		return c, err
	}
	c.Unread = false
	return c, nil
}

// DeleteConversation takes conversation conv out of uid's list (of
// theirs only; ErrNoConversation when it is not there), until a later
// post in it brings it back, with that post alone: one pipeline in uid's
// slot, its posts first, so that a failure midway leaves a listed
// conversation without posts, which the list does not show and the
// check drops.
func (s *Store) DeleteConversation(ctx context.Context, uid, conv int64) error {
	b, c := s.C.B(), kernel.ID(conv)
	s.Written.Add(schema.Conversation(uid, conv), schema.ConversationsRead(uid), schema.Conversations(uid))
	res := s.C.DoMulti(ctx,
		b.Del().Key(schema.Conversation(uid, conv)).Build(),
		b.Zrem().Key(schema.ConversationsRead(uid)).Member(c).Build(),
		b.Zrem().Key(schema.Conversations(uid)).Member(c).Build())
	n, err := res[2].AsInt64()
	if err = cmp.Or(res[0].Error(), res[1].Error(), err); err != nil {
		return s.Wrap("delete conversation", err)
	}
	if n == 0 {
		return ErrNoConversation
	}
	return nil
}
