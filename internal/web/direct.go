package web

import (
	"net/http"
	"slices"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// direct serves GET /direct: the viewer's conversations, newest activity
// first, by cursor (?before=, ?after=: the id of a conversation's newest
// post), each with its newest post and whom it is with, those unread
// marked so. Once shown they are read, as the notifications page reads
// the notifications.
func (s *Server) direct(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	c, err := paging.ParseCursor(r.URL.Query(), "post")
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	convs, err := s.Store.Conversations(r.Context(), u.ID, c, PageSize)
	var v page.View
	if err == nil {
		v, err = s.directView(r, u, convs)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, http.StatusOK, "direct", v)
	if err := s.Store.MarkConversationsRead(r.Context(), u.ID, convs.Conversations); err != nil {
		s.Log.Warn("mark conversations read", "user", u.ID, "err", err) // they stay unread: shown so next time
	}
}

// directView returns the Direct page of page's conversations, with the
// summaries of whom they are with (one read).
func (s *Server) directView(r *http.Request, u retwis.User, convs interact.ConversationPage) (page.View, error) {
	v := page.View{Title: "Direct", Viewer: &u}
	var uids, newest []int64
	for _, c := range convs.Conversations {
		v.Page.Posts, uids, newest = append(v.Page.Posts, c.Last), append(uids, c.With...), append(newest, c.Newest)
	}
	sums, err := s.Store.Summaries(r.Context(), uids)
	if err != nil {
		return v, err
	}
	for i, c := range convs.Conversations {
		cv := page.ConversationView{ID: c.ID, Last: v.Page.Posts[i : i+1], Unread: c.Unread}
		for _, sum := range sums {
			if slices.Contains(c.With, sum.User.ID) && !slices.ContainsFunc(cv.With, func(o retwis.Summary) bool { return o.User.ID == sum.User.ID }) {
				cv.With = append(cv.With, sum)
			}
		}
		v.Conversations = append(v.Conversations, cv)
	}
	v.Newer, v.Older = paging.CursorLinks(r.URL.Path, newest, convs.Newer, convs.Older)
	return v, nil
}
