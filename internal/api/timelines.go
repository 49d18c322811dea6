package api

import (
	"net/http"
	"net/url"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/filters"
)

// homeTimeline answers GET /api/v1/timelines/home: the posts of the
// user and those they follow.
func (s *Server) homeTimeline(w http.ResponseWriter, r *http.Request) {
	p, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	page, _, err := s.Store.HomeTimeline(r.Context(), apiwire.Viewer(r).ID, p.Cursor, p.Limit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.WriteFiltered(w, r, filters.Home, page, p.Since)
}

// publicTimeline answers GET /api/v1/timelines/public: every post
// (retwis has one server, so local and remote are the same).
func (s *Server) publicTimeline(w http.ResponseWriter, r *http.Request) {
	p, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	v := r.URL.Query()
	if apiwire.Flag(v, "remote") { // nothing is remote
		apiwire.WriteJSON(w, http.StatusOK, []entity.Status{})
		return
	}
	page, err := s.Store.GlobalTimeline(r.Context(), apiwire.Viewer(r).ID, p.Cursor, p.Limit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.WriteSome(w, r, filters.Public, page, p.Since, onlyMedia(v))
}

// onlyMedia is the keep of apiwire.Kit.WriteSome for a list read with
// only_media=true: the posts with pictures alone (nil without it: all).
// They are picked from the page read, which may then show fewer posts
// than the limit, or none, with its Link header to the next.
func onlyMedia(v url.Values) func(retwis.Post) bool {
	if !apiwire.Flag(v, "only_media") {
		return nil
	}
	return func(p retwis.Post) bool { return len(p.Media) > 0 }
}

// tagTimeline answers GET /api/v1/timelines/tag/{hashtag}.
func (s *Server) tagTimeline(w http.ResponseWriter, r *http.Request) {
	p, ok := s.PageOf(w, r)
	if !ok {
		return
	}
	page, err := s.Store.TagPosts(r.Context(), apiwire.Viewer(r).ID, r.PathValue("hashtag"), p.Cursor, p.Limit)
	if retwis.ErrorKind(err) == retwis.NotFound {
		page, err = retwis.Page{}, nil // a tag nobody used has no posts
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	s.WriteSome(w, r, filters.Public, page, p.Since, onlyMedia(r.URL.Query()))
}
