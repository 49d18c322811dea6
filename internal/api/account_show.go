package api

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// account answers GET /api/v1/accounts/{id}.
func (s *Server) account(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.accountOf(w, r)
	if ok {
		writeJSON(w, http.StatusOK, newSite(r).account(sum))
	}
}

// accountOf reads the account the path names; ok is false once the
// request has been answered (404 for an id of nobody, or of a suspended
// account but to moderators).
func (s *Server) accountOf(w http.ResponseWriter, r *http.Request) (retwis.Summary, bool) {
	uid, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		notFound(w, r)
		return retwis.Summary{}, false
	}
	err := s.store.Shown(r.Context(), viewer(r).ID, uid)
	var sum retwis.Summary
	if err == nil {
		sum, err = s.store.Summary(r.Context(), uid)
	}
	if err != nil {
		s.fail(w, r, err)
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
		notFound(w, r) // retwis does not federate
		return
	}
	if !retwis.IsUsernameShaped(name) {
		notFound(w, r)
		return
	}
	u, err := s.store.UserByName(r.Context(), name)
	if err == nil {
		err = s.store.Shown(r.Context(), viewer(r).ID, u.ID)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sum, err := s.store.Summary(r.Context(), u.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, newSite(r).account(sum))
}

// accountStatuses answers GET /api/v1/accounts/{id}/statuses: the
// account's posts, newest first, or with pinned=true its pinned posts.
func (s *Server) accountStatuses(w http.ResponseWriter, r *http.Request) {
	sum, ok := s.accountOf(w, r)
	if !ok {
		return
	}
	p, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	v := r.URL.Query()
	if flag(v, "only_media") { // no post has media
		writeJSON(w, http.StatusOK, []status{})
		return
	}
	if flag(v, "pinned") {
		s.pinnedStatuses(w, r, sum.User.ID, p)
		return
	}
	prof, err := s.store.Profile(r.Context(), viewer(r).ID, sum.User, p.cursor, p.limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page := prof.Page
	if flag(v, "exclude_replies") {
		kept := page.Posts[:0]
		for _, post := range page.Posts {
			if post.InReplyTo == 0 {
				kept = append(kept, post)
			}
		}
		page.Posts = kept
	}
	s.writePage(w, r, page, p.since)
}
