package web

import (
	"net/http"
	"strconv"

	"github.com/retwis/retwis/internal/export"
	"github.com/retwis/retwis/internal/middleware"
)

// exportData serves GET /settings/export: the viewer's data to download,
// a ZIP archive of one JSON document and their pictures (package
// export). The profile is read before the answer begins, so that a
// database that cannot be read gets an error page; a failure once the
// archive has begun leaves it unfinished.
func (s *Server) exportData(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if _, _, err := s.Store.About(r.Context(), u.ID); err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", "attachment; filename="+strconv.Quote(export.ArchiveName(u)))
	h.Set("Cache-Control", "private, no-store")
	if err := export.WriteArchive(r.Context(), w, s.Store, s.media, u); err != nil {
		s.MW.LogFailure(r, http.StatusServiceUnavailable, err)
	}
}
