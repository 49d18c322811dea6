package api

import (
	"net/http"

	"github.com/retwis/retwis"
)

// homeTimeline answers GET /api/v1/timelines/home: the posts of the
// user and those they follow.
func (s *Server) homeTimeline(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	page, _, err := s.store.HomeTimeline(r.Context(), viewer(r).ID, p.cursor, p.limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writePage(w, r, page, p.since)
}

// publicTimeline answers GET /api/v1/timelines/public: every post
// (retwis has one server, so local and remote are the same).
func (s *Server) publicTimeline(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	v := r.URL.Query()
	if flag(v, "remote") || flag(v, "only_media") { // nothing is remote, no post has media
		writeJSON(w, http.StatusOK, []status{})
		return
	}
	page, err := s.store.GlobalTimeline(r.Context(), viewer(r).ID, p.cursor, p.limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writePage(w, r, page, p.since)
}

// tagTimeline answers GET /api/v1/timelines/tag/{hashtag}.
func (s *Server) tagTimeline(w http.ResponseWriter, r *http.Request) {
	p, ok := s.pageOf(w, r)
	if !ok {
		return
	}
	if flag(r.URL.Query(), "only_media") {
		writeJSON(w, http.StatusOK, []status{})
		return
	}
	page, err := s.store.TagPosts(r.Context(), viewer(r).ID, r.PathValue("hashtag"), p.cursor, p.limit)
	if retwis.ErrorKind(err) == retwis.NotFound {
		page, err = retwis.Page{}, nil // a tag nobody used has no posts
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writePage(w, r, page, p.since)
}
