package filters

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// addKeyword answers POST /api/v2/filters/{filter_id}/keywords: a new
// keyword (keyword, whole_word: true if absent) of the filter.
func (s *Server) addKeyword(w http.ResponseWriter, r *http.Request) {
	id, v, ok := pathParams(w, r, "filter_id")
	if !ok {
		return
	}
	_, given := v["whole_word"]
	whole := !given || apiwire.Flag(v, "whole_word") // true unless said otherwise, as Mastodon's default
	k, err := s.Filters.AddKeyword(r.Context(), apiwire.Viewer(r).ID, id, v.Get("keyword"), whole)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.KeywordOf(k))
}

// updateKeyword answers PUT /api/v2/filters/keywords/{id}: keyword and
// whole_word, those given, changed.
func (s *Server) updateKeyword(w http.ResponseWriter, r *http.Request) {
	id, v, ok := pathParams(w, r, "id")
	if !ok {
		return
	}
	fields := map[string]string{}
	for _, field := range []string{"keyword", "whole_word"} {
		if _, given := v[field]; given {
			fields[field] = v.Get(field)
		}
	}
	e, _ := keywordEdit(fields) // no id to refuse
	k, err := s.Filters.UpdateKeyword(r.Context(), apiwire.Viewer(r).ID, id, e.Keyword, e.WholeWord)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.KeywordOf(k))
}

// deleteKeyword answers DELETE /api/v2/filters/keywords/{id}: {}.
func (s *Server) deleteKeyword(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	s.writeEmpty(w, r, s.Filters.DeleteKeyword(r.Context(), apiwire.Viewer(r).ID, id))
}
