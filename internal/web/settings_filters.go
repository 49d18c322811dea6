package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/filterform"
	"github.com/retwis/retwis/internal/web/page"
)

// showFilters renders the filters page (GET /settings/filters: the
// viewer's filters, each with its forms, and the form of a new one) with
// status, and err's message.
func (s *Server) showFilters(w http.ResponseWriter, r *http.Request, status int, err error) {
	u, _ := middleware.ViewerFrom(r.Context())
	list, lerr := s.Filters.List(r.Context(), u.ID)
	if lerr != nil {
		s.MW.Fail(w, r, lerr)
		return
	}
	v := page.View{Title: "Filters", Viewer: &u, Filters: list}
	if err != nil {
		v.Error = retwis.ErrorMessage(err)
	}
	s.Render(w, r, status, "filters", v)
}

// editFilters serves POST /settings/filters: its op (filterform.Do).
func (s *Server) editFilters(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := page.ParseForm(w, r)
	if err == nil {
		err = filterform.Do(r.Context(), s.Filters, u.ID, r.PostForm)
	}
	if err != nil {
		if status, ok := s.FormRefused(w, r, status, err); ok {
			s.showFilters(w, r, status, err)
		}
		return
	}
	http.Redirect(w, r, "/settings/filters", http.StatusSeeOther)
}
