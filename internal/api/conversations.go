package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/retwis/retwis"
)

// conversation is Mastodon's Conversation: a direct post and the
// accounts it is between.
type conversation struct {
	ID         string    `json:"id"`
	Unread     bool      `json:"unread"`
	Accounts   []account `json:"accounts"`
	LastStatus *status   `json:"last_status"`
}

// conversations answers GET /api/v1/conversations: the viewer's direct
// posts (those they wrote or are mentioned in), newest first, paged by
// post id as a timeline is. Each is a conversation of its own, whose id
// is the post's: the post is its last status, its accounts are the
// post's author and those it mentions but the viewer. None is unread:
// retwis keeps no read marker of them.
func (s *Server) conversations(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	uid := viewer(r).ID
	page, err := s.store.Direct(r.Context(), uid, p.cursor, p.limit)
	posts := newerThan(page.Posts, p.since, func(p retwis.Post) int64 { return p.ID })
	var out []conversation
	if err == nil {
		out, err = s.conversationsOf(r.Context(), newSite(r), uid, posts)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(posts) > 0 {
		link(w, r, posts[0].ID, posts[len(posts)-1].ID, page.Older)
	}
	writeJSON(w, http.StatusOK, out)
}

// conversationsOf returns the conversations of the direct posts posts
// as uid reads them: their statuses, then the summaries of everyone they
// are between, in a constant number of round trips.
func (s *Server) conversationsOf(ctx context.Context, st site, uid int64, posts []retwis.Post) ([]conversation, error) {
	statuses, err := s.statuses(ctx, st, posts)
	if err != nil {
		return nil, err
	}
	var uids []int64
	for _, p := range posts {
		uids = append(append(uids, p.AuthorID), p.MentionIDs...)
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
		c := conversation{ID: statuses[i].ID, Accounts: []account{}, LastStatus: &statuses[i]}
		if k := slices.IndexFunc(posts, func(p retwis.Post) bool { return id(p.ID) == c.ID }); k >= 0 {
			c.Accounts = accountsOf(st, byID, uid, append([]int64{posts[k].AuthorID}, posts[k].MentionIDs...))
		}
		out = append(out, c)
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
