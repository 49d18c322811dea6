package entity

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/interact"
)

// Builder builds the entities that need more than their records: the
// summaries of the accounts they show, the counts of replies, the posts
// of notifications, each read for a whole list in a constant number of
// round trips, through the client-side cache.
type Builder struct {
	// Store is the database the entities are read from.
	Store *store.Store
	// Filters are its users' filters, which Filtered applies (nil:
	// none applied).
	Filters *filters.Store
}

// Statuses returns the entities of posts: their authors' summaries in
// one pipeline and their counts of replies in another, whatever the
// number of posts. A boost's entity holds the post it boosts as its
// reblog. A post whose author is gone is left out.
func (b Builder) Statuses(ctx context.Context, st Site, posts []retwis.Post) ([]Status, error) {
	out := make([]Status, 0, len(posts))
	if len(posts) == 0 {
		return out, nil
	}
	all := append([]retwis.Post(nil), posts...) // then the posts boosted
	for _, p := range posts {
		if p.Reblog != nil {
			all = append(all, *p.Reblog)
		}
	}
	var authors, pids []int64
	seen := map[int64]bool{}
	for _, p := range all {
		pids = append(pids, p.ID)
		if !seen[p.AuthorID] {
			seen[p.AuthorID], authors = true, append(authors, p.AuthorID)
		}
	}
	byID := make(map[int64]retwis.Summary, len(authors))
	if err := b.summaries(ctx, authors, byID); err != nil {
		return nil, err
	}
	replies, err := b.Store.ReplyCounts(ctx, pids)
	if err != nil {
		return nil, err
	}
	boosted := len(posts) // where the next boost's post is in all
	for i, p := range posts {
		author, ok := byID[p.AuthorID] // else the account is gone
		e := st.Status(p, author, replies[i])
		if p.Reblog != nil {
			orig, j := *p.Reblog, boosted
			boosted++
			origAuthor, found := byID[orig.AuthorID]
			e.boosts(st.Status(orig, origAuthor, replies[j]))
			ok = ok && found
		}
		if ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// Accounts returns the accounts of uids, their summaries read in one
// pipeline; an account gone is left out.
func (b Builder) Accounts(ctx context.Context, st Site, uids []int64) ([]Account, error) {
	sums, err := b.Store.Summaries(ctx, uids)
	if err != nil {
		return nil, err
	}
	out := make([]Account, len(sums))
	for i, sum := range sums {
		out[i] = st.Account(sum)
	}
	return out, nil
}

// summaries reads the summaries of uids in one pipeline into byID, by
// user id (the caller makes the map, which then stays on its stack).
func (b Builder) summaries(ctx context.Context, uids []int64, byID map[int64]retwis.Summary) error {
	sums, err := b.Store.Summaries(ctx, uids)
	for _, sum := range sums {
		byID[sum.User.ID] = sum
	}
	return err
}

// Notifications returns the entities of notes, as the viewer of ctx
// (middleware.WithViewer) sees them: their actors and posts read in a
// constant number of round trips. A notification of a post deleted
// since, or not seen, is left out.
func (b Builder) Notifications(ctx context.Context, st Site, notes []retwis.Notification) ([]Notification, error) {
	var actors, pids []int64
	for _, n := range notes {
		actors = append(actors, n.Actor.ID)
		if n.Post > 0 {
			pids = append(pids, n.Post)
		}
	}
	posts, err := b.Store.Posts(ctx, middleware.ViewerID(ctx), pids)
	if err != nil {
		return nil, err
	}
	byUser := make(map[int64]retwis.Summary, len(actors))
	if err := b.summaries(ctx, actors, byUser); err != nil {
		return nil, err
	}
	statuses, err := b.Filtered(ctx, st, filters.Notifications, posts)
	if err != nil {
		return nil, err
	}
	byPost := map[string]*Status{}
	for i := range statuses {
		byPost[statuses[i].ID] = &statuses[i]
	}
	out := make([]Notification, 0, len(notes))
	for _, n := range notes {
		actor, ok := byUser[n.Actor.ID]
		if !ok {
			continue
		}
		e := Notification{ID: ID(n.ID), Type: NotificationType(n.Kind), CreatedAt: Stamp(n.Time), Account: st.Account(actor)}
		if n.Post > 0 {
			if e.Status = byPost[ID(n.Post)]; e.Status == nil {
				continue
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// Conversations returns convs as uid reads them: their newest posts'
// statuses, then the summaries of everyone they are between, in a
// constant number of round trips.
func (b Builder) Conversations(ctx context.Context, st Site, uid int64, convs []interact.Conversation) ([]Conversation, error) {
	posts := make([]retwis.Post, len(convs))
	var uids []int64
	for i, c := range convs {
		posts[i], uids = c.Last, append(uids, c.With...)
	}
	statuses, err := b.Statuses(ctx, st, posts)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]retwis.Summary, len(uids))
	if err := b.summaries(ctx, uids, byID); err != nil {
		return nil, err
	}
	out := make([]Conversation, 0, len(statuses))
	for i := range statuses {
		out = append(out, Conversation{ID: ID(convs[i].ID), Unread: convs[i].Unread,
			Accounts: accountsOf(st, byID, uid, convs[i].With), LastStatus: &statuses[i]})
	}
	return out, nil
}

// accountsOf returns the accounts of uids that byID holds, each once,
// but uid's.
func accountsOf(st Site, byID map[int64]retwis.Summary, uid int64, uids []int64) []Account {
	out := []Account{}
	seen := map[int64]bool{uid: true}
	for _, u := range uids {
		if sum, ok := byID[u]; ok && !seen[u] {
			seen[u] = true
			out = append(out, st.Account(sum))
		}
	}
	return out
}

// The entities as JSON, one at a time, for internal/streaming, whose
// events carry them, for a client of origin (the scheme and host their
// URLs begin with, as middleware.Origin says).

// StatusJSON returns the Status of post pid as JSON, or "" if the post
// or its author is gone. It reads the post whoever reads it: whether a
// viewer sees it (blocks, visibility) is the caller's to ask.
func (b Builder) StatusJSON(ctx context.Context, origin string, pid int64) (string, error) {
	p, err := b.Store.ModeratedPost(ctx, pid) // whoever reads: the streams ask whether each viewer sees it
	if retwis.ErrorKind(err) == retwis.NotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	out, err := b.Statuses(ctx, SiteAt(origin), []retwis.Post{p})
	if err != nil {
		return "", err
	}
	return firstJSON(out)
}

// NotificationJSON returns the Notification of n as JSON, or "" if its
// post or its actor is gone, or the viewer of ctx (middleware.WithViewer)
// does not see its post.
func (b Builder) NotificationJSON(ctx context.Context, origin string, n retwis.Notification) (string, error) {
	out, err := b.Notifications(ctx, SiteAt(origin), []retwis.Notification{n})
	if err != nil {
		return "", err
	}
	return firstJSON(out)
}

// ConversationJSON returns viewer's Conversation whose newest post is
// pid as JSON, or "" if there is none (see interact.ConversationAt).
func (b Builder) ConversationJSON(ctx context.Context, origin string, viewer, pid int64) (string, error) {
	c, err := b.Store.ConversationAt(ctx, viewer, pid)
	if errors.Is(err, interact.ErrNoConversation) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	out, err := b.Conversations(ctx, SiteAt(origin), viewer, []interact.Conversation{c})
	if err != nil {
		return "", err
	}
	return firstJSON(out)
}

// firstJSON returns the JSON of the one entity of out, or "" if there is
// none.
func firstJSON[E any](out []E) (string, error) {
	if len(out) == 0 {
		return "", nil
	}
	b, err := json.Marshal(out[0])
	if err != nil {
		return "", err
	}
	return string(b), nil
}
