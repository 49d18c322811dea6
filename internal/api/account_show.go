package api

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/filters"
)

// account answers GET /api/v1/accounts/{id}.
func (s *Server) account(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.accountOf(w, r)
	if ok {
		apiwire.WriteJSON(w, http.StatusOK, entity.SiteOf(r).Account(sum))
	}
}

// accountOf reads the account the path names; ok is false once the
// request has been answered (404 for an id of nobody, or of a suspended
// account but to moderators).
func (s *Server) accountOf(w http.ResponseWriter, r *http.Request) (retwis.Summary, bool) {
	uid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return retwis.Summary{}, false
	}
	err := s.Store.Shown(r.Context(), apiwire.Viewer(r).ID, uid)
	var sum retwis.Summary
	if err == nil {
		sum, err = s.Store.Summary(r.Context(), uid)
	}
	if err != nil {
		s.Fail(w, r, err)
		return sum, false
	}
	return sum, true
}

// lookupAccount answers GET /api/v1/accounts/lookup?acct=: the account
// of a username ("name" or "name@this-host").
func (s *Server) lookupAccount(w http.ResponseWriter, r *http.Request) {
	acct := strings.TrimPrefix(r.URL.Query().Get("acct"), "@")
	name, host, remote := strings.Cut(acct, "@")
	if remote && !strings.EqualFold(host, middleware.Host(r)) {
		apiwire.NotFound(w, r) // retwis does not federate
		return
	}
	if !retwis.IsUsernameShaped(name) {
		apiwire.NotFound(w, r)
		return
	}
	u, err := s.Store.UserByName(r.Context(), name)
	if err == nil {
		err = s.Store.Shown(r.Context(), apiwire.Viewer(r).ID, u.ID)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	sum, err := s.Store.Summary(r.Context(), u.ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.SiteOf(r).Account(sum))
}

// accountStatuses answers GET /api/v1/accounts/{id}/statuses: the
// account's posts, newest first, or with pinned=true its pinned posts.
func (s *Server) accountStatuses(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.accountOf(w, r)
	if !ok {
		return
	}
	p, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	v := r.URL.Query()
	if apiwire.Flag(v, "pinned") {
		s.pinnedStatuses(w, r, sum.User.ID, p)
		return
	}
	prof, err := s.Store.Profile(r.Context(), apiwire.Viewer(r).ID, sum.User, p.Cursor, p.Limit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	page := prof.Page
	if apiwire.Flag(v, "exclude_replies") {
		kept := page.Posts[:0]
		for _, post := range page.Posts {
			if post.InReplyTo == 0 {
				kept = append(kept, post)
			}
		}
		page.Posts = kept
	}
	s.WriteSome(w, r, filters.Account, page, p.Since, onlyMedia(v))
}
