package markers

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/store"
)

// Marker is Mastodon's Marker entity.
type Marker struct {
	LastReadID string `json:"last_read_id"`
	Version    int64  `json:"version"`
	UpdatedAt  string `json:"updated_at"`
}

// entityOf returns the entity of m.
func entityOf(m store.Marker) Marker {
	return Marker{LastReadID: strconv.FormatInt(m.LastReadID, 10), Version: m.Version, UpdatedAt: entity.Stamp(m.UpdatedAt)}
}

// markers answers GET /api/v1/markers: the viewer's markers in the
// timelines of timeline[] (home, notifications) that were ever saved; no
// timeline asked for, none.
func (s *Server) markers(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	out := map[string]Marker{}
	asked := apiwire.List(v, "timeline")
	if len(asked) == 0 {
		apiwire.WriteJSON(w, http.StatusOK, out)
		return
	}
	all, err := s.Store.Markers(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	for timeline, m := range all {
		if slices.Contains(asked, timeline) {
			out[timeline] = entityOf(m)
		}
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// saveMarkers answers POST /api/v1/markers: saves the viewer's position
// in each timeline given, home[last_read_id] or
// notifications[last_read_id], and answers the markers saved.
func (s *Server) saveMarkers(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	ids := map[string]int64{}
	for _, timeline := range store.MarkerTimelines {
		raw, given := v[timeline+"[last_read_id]"]
		if !given {
			continue
		}
		if len(raw) != 1 {
			apiwire.RenderError(w, r, http.StatusUnprocessableEntity, timeline+"[last_read_id] must be one id.")
			return
		}
		id, ok := retwis.ParseID(raw[0])
		if !ok {
			apiwire.RenderError(w, r, http.StatusUnprocessableEntity, timeline+"[last_read_id] must be one id.")
			return
		}
		ids[timeline] = id
	}
	saved, err := s.Store.SaveMarkers(r.Context(), apiwire.Viewer(r).ID, ids)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := map[string]Marker{}
	for timeline, m := range saved {
		out[timeline] = entityOf(m)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
