package web

import (
	"net/http"
	"strconv"

	"github.com/retwis/retwis/internal/export"
	"github.com/retwis/retwis/internal/middleware"
)

// exportData serves GET /settings/export: the viewer's data as one JSON
// document to download (package export). The profile is read before the
// answer begins, so that a database that cannot be read gets an error
// page; a failure once the document has begun leaves it unfinished.
func (s *Server) exportData(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if _, _, err := s.Store.About(r.Context(), u.ID); err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Disposition", "attachment; filename="+strconv.Quote(export.FileName(u)))
	h.Set("Cache-Control", "private, no-store")
	if err := export.Write(r.Context(), w, s.Store, u); err != nil {
		s.MW.LogFailure(r, http.StatusServiceUnavailable, err)
	}
}
