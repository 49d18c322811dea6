package api

import (
	"net/http"

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
	if err != nil {
		s.fail(w, r, err)
		return
	}
	posts := newerThan(page.Posts, p.since, func(p retwis.Post) int64 { return p.ID })
	st := newSite(r)
	statuses, err := s.statuses(r.Context(), st, posts)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	byID, err := s.participants(r, uid, posts)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]conversation, 0, len(statuses))
	for i := range statuses {
		c := conversation{ID: statuses[i].ID, Accounts: []account{}, LastStatus: &statuses[i]}
		for _, p := range posts {
			if id(p.ID) == c.ID {
				c.Accounts = accountsOf(st, byID, uid, append([]int64{p.AuthorID}, p.MentionIDs...))
			}
		}
		out = append(out, c)
	}
	if len(posts) > 0 {
		link(w, r, posts[0].ID, posts[len(posts)-1].ID, page.Older)
	}
	writeJSON(w, http.StatusOK, out)
}

// participants returns the summaries of the authors of posts and of
// those they mention, but for uid, by id, in one pipeline.
func (s *Server) participants(r *http.Request, uid int64, posts []retwis.Post) (map[int64]retwis.Summary, error) {
	var uids []int64
	for _, p := range posts {
		uids = append(append(uids, p.AuthorID), p.MentionIDs...)
	}
	sums, err := s.store.Summaries(r.Context(), uids)
	byID := make(map[int64]retwis.Summary, len(sums))
	for _, sum := range sums {
		if sum.User.ID != uid {
			byID[sum.User.ID] = sum
		}
	}
	return byID, err
}

// accountsOf returns the accounts of uids that byID holds, each once.
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
