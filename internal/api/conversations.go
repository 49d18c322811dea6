package api

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/interact"
)

// conversations answers GET /api/v1/conversations: the viewer's direct
// conversations, newest activity first, paged by the id of their newest
// post (max_id, min_id, since_id, the Link header). A conversation's id
// is the root of its thread; its accounts are its newest post's author
// and those it mentions but the viewer; it is unread until the viewer
// reads it (POST …/read), which listing does not do.
func (s *Server) conversations(w http.ResponseWriter, r *http.Request) {
	p, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	uid := apiwire.Viewer(r).ID
	page, err := s.Store.Conversations(r.Context(), uid, p.Cursor, p.Limit)
	convs := apiwire.NewerThan(page.Conversations, p.Since, func(c interact.Conversation) int64 { return c.Newest })
	var out []entity.Conversation
	if err == nil {
		out, err = s.Conversations(r.Context(), entity.SiteOf(r), uid, convs)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if len(convs) > 0 {
		apiwire.Link(w, r, convs[0].Newest, convs[len(convs)-1].Newest, page.Older)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// readConversation answers POST /api/v1/conversations/:id/read: the
// conversation, marked read by the viewer.
func (s *Server) readConversation(w http.ResponseWriter, r *http.Request) {
	conv, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		s.Fail(w, r, interact.ErrNoConversation)
		return
	}
	uid := apiwire.Viewer(r).ID
	c, err := s.Store.ReadConversation(r.Context(), uid, conv)
	var out []entity.Conversation
	if err == nil {
		out, err = s.Conversations(r.Context(), entity.SiteOf(r), uid, []interact.Conversation{c})
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out[0])
}

// deleteConversation answers DELETE /api/v1/conversations/:id: the
// conversation taken out of the viewer's list only (a later post in it
// brings it back); an empty object.
func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request) {
	conv, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		s.Fail(w, r, interact.ErrNoConversation)
		return
	}
	if err := s.Store.DeleteConversation(r.Context(), apiwire.Viewer(r).ID, conv); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, struct{}{})
}
