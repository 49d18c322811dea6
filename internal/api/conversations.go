package api

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/interact"
)

// conversation is Mastodon's Conversation: a thread of direct posts, the
// accounts it is between and its newest post.
type conversation struct {
	ID         string    `json:"id"`
	Unread     bool      `json:"unread"`
	Accounts   []account `json:"accounts"`
	LastStatus *status   `json:"last_status"`
}

// conversations answers GET /api/v1/conversations: the viewer's direct
// conversations, newest activity first, paged by the id of their newest
// post (max_id, min_id, since_id, the Link header). A conversation's id
// is the root of its thread; its accounts are its newest post's author
// and those it mentions but the viewer; it is unread until the viewer
// reads it (POST …/read), which listing does not do.
func (s *Server) conversations(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	uid := viewer(r).ID
	page, err := s.store.Conversations(r.Context(), uid, p.cursor, p.limit)
	convs := newerThan(page.Conversations, p.since, func(c interact.Conversation) int64 { return c.Newest })
	var out []conversation
	if err == nil {
		out, err = s.conversationsOf(r.Context(), newSite(r), uid, convs)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(convs) > 0 {
		link(w, r, convs[0].Newest, convs[len(convs)-1].Newest, page.Older)
	}
	writeJSON(w, http.StatusOK, out)
}

// readConversation answers POST /api/v1/conversations/:id/read: the
// conversation, marked read by the viewer.
func (s *Server) readConversation(w http.ResponseWriter, r *http.Request) {
	conv, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		s.fail(w, r, interact.ErrNoConversation)
		return
	}
	uid := viewer(r).ID
	c, err := s.store.ReadConversation(r.Context(), uid, conv)
	var out []conversation
	if err == nil {
		out, err = s.conversationsOf(r.Context(), newSite(r), uid, []interact.Conversation{c})
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out[0])
}

// deleteConversation answers DELETE /api/v1/conversations/:id: the
// conversation taken out of the viewer's list only (a later post in it
// brings it back); an empty object.
func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request) {
	conv, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		s.fail(w, r, interact.ErrNoConversation)
		return
	}
	if err := s.store.DeleteConversation(r.Context(), viewer(r).ID, conv); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{})
}

// conversationsOf returns convs as uid reads them: their newest posts'
// statuses, then the summaries of everyone they are between, in a
// constant number of round trips.
func (s *Server) conversationsOf(ctx context.Context, st site, uid int64, convs []interact.Conversation) ([]conversation, error) {
	posts := make([]retwis.Post, len(convs))
	var uids []int64
	for i, c := range convs {
		posts[i], uids = c.Last, append(uids, c.With...)
	}
	statuses, err := s.statuses(ctx, st, posts)
	if err != nil {
		return nil, err
	}
	sums, err := s.store.Summaries(ctx, uids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]retwis.Summary, len(sums))
	for _, sum := range sums {
		byID[sum.User.ID] = sum
	}
	out := make([]conversation, 0, len(statuses))
	for i := range statuses {
		out = append(out, conversation{ID: id(convs[i].ID), Unread: convs[i].Unread,
			Accounts: accountsOf(st, byID, uid, convs[i].With), LastStatus: &statuses[i]})
	}
	return out, nil
}

// accountsOf returns the accounts of uids that byID holds, each once,
// but uid's.
func accountsOf(st site, byID map[int64]retwis.Summary, uid int64, uids []int64) []account {
	out := []account{}
	seen := map[int64]bool{uid: true}
	for _, u := range uids {
		if sum, ok := byID[u]; ok && !seen[u] {
			seen[u] = true
			out = append(out, st.account(sum))
		}
	}
	return out
}
