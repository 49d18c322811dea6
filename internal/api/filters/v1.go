package filters

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store/filters"
)

// v1List answers GET /api/v1/filters: each keyword of the viewer's
// filters as a v1 filter, as Mastodon maps filters v2 to v1.
func (s *Server) v1List(w http.ResponseWriter, r *http.Request) {
	all, err := s.Filters.List(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := []entity.V1Filter{}
	for _, f := range all {
		for _, k := range f.Keywords {
			out = append(out, entity.V1FilterOf(f, k))
		}
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// v1Show answers GET /api/v1/filters/{id}: the keyword id as a v1
// filter.
func (s *Server) v1Show(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	f, k, err := s.Filters.KeywordOf(r.Context(), apiwire.Viewer(r).ID, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.V1FilterOf(f, k))
}

// v1Draft reads the parameters of a v1 filter into a change of the v2
// filter that holds it (as Mastodon maps them: the phrase its keyword
// and its title, irreversible its hide action, context[], expires_in),
// and the change of its keyword (id, 0 for a new one).
func v1Draft(v url.Values, keyword int64) (filters.Draft, error) {
	var d filters.Draft
	if _, ok := v["phrase"]; ok {
		d.Title = ptr(v.Get("phrase"))
	}
	if c := apiwire.List(v, "context"); len(c) > 0 {
		d.Context = c
	}
	if _, ok := v["irreversible"]; ok {
		d.Action = ptr(filters.Warn)
		if apiwire.Flag(v, "irreversible") {
			d.Action = ptr(filters.Hide)
		}
	}
	if raw, ok := v["expires_in"]; ok {
		at, err := expiresAt(raw[0])
		if err != nil {
			return d, err
		}
		d.Expires = &at
	}
	e := filters.KeywordEdit{ID: keyword, Keyword: d.Title}
	if _, ok := v["whole_word"]; ok {
		e.WholeWord = ptr(apiwire.Flag(v, "whole_word"))
	}
	if e.Keyword != nil || e.WholeWord != nil {
		d.Keywords = []filters.KeywordEdit{e}
	}
	return d, nil
}

// v1Create answers POST /api/v1/filters (phrase, context[],
// irreversible, whole_word, expires_in): a filter of one keyword, the
// phrase, as Mastodon makes of a v1 filter; the v1 filter.
func (s *Server) v1Create(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	if strings.TrimSpace(v.Get("phrase")) == "" {
		s.Fail(w, r, retwis.Errorf(retwis.Invalid, "phrase can't be blank"))
		return
	}
	d, err := v1Draft(v, 0)
	var f filters.Filter
	if err == nil {
		f, err = s.Filters.Create(r.Context(), apiwire.Viewer(r).ID, d)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.V1FilterOf(f, f.Keywords[0]))
}

// v1Update answers PUT /api/v1/filters/{id} (the parameters of
// v1Create, those given): the keyword id and the filter that holds it
// changed; its phrase only if that filter has no other keyword, as
// Mastodon (422 otherwise). The v1 filter.
func (s *Server) v1Update(w http.ResponseWriter, r *http.Request) {
	id, v, ok := pathParams(w, r, "id")
	if !ok {
		return
	}
	uid := apiwire.Viewer(r).ID
	f, _, err := s.Filters.KeywordOf(r.Context(), uid, id)
	var d filters.Draft
	switch _, phrase := v["phrase"]; {
	case err != nil:
	case phrase && len(f.Keywords) > 1:
		err = retwis.Errorf(retwis.Invalid, "This filter has several keywords: change them through /api/v2/filters.")
	default:
		d, err = v1Draft(v, id)
	}
	if err == nil {
		f, err = s.Filters.Update(r.Context(), uid, f.ID, d)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	for _, k := range f.Keywords {
		if k.ID == id {
			apiwire.WriteJSON(w, http.StatusOK, entity.V1FilterOf(f, k))
			return
		}
	}
	s.Fail(w, r, retwis.Errorf(retwis.NotFound, "Record not found"))
}

// v1Delete answers DELETE /api/v1/filters/{id}: the keyword id gone,
// and with it the filter that held it if nothing else is left in it;
// {}.
func (s *Server) v1Delete(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r, r.PathValue("id"))
	if !ok {
		return
	}
	uid := apiwire.Viewer(r).ID
	f, _, err := s.Filters.KeywordOf(r.Context(), uid, id)
	switch {
	case err != nil:
	case len(f.Keywords) == 1 && len(f.Statuses) == 0:
		err = s.Filters.Delete(r.Context(), uid, f.ID)
	default:
		err = s.Filters.DeleteKeyword(r.Context(), uid, id)
	}
	s.writeEmpty(w, r, err)
}
