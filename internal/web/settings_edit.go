package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// editSettings serves GET /settings: the form for the viewer's display
// name and bio.
func (s *Server) editSettings(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	name, bio, err := s.Store.About(r.Context(), u.ID)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v := page.View{Title: "Settings", Viewer: &u, About: page.AboutForm{Name: name, Bio: bio}}
	if v.Moderator, err = s.Store.IsModerator(r.Context(), u.ID); err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	if r.URL.Query().Get("password") == "changed" {
		v.Notice = "Your password is changed, and you are logged out everywhere else."
	}
	s.Render(w, r, http.StatusOK, "settings", v)
}

// saveSettings serves POST /settings with name and bio: saved, it goes
// to the viewer's profile; refused, the form shows again with the reason
// and what was typed, and nothing is saved.
func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := page.ParseForm(w, r)
	form := page.AboutForm{Name: r.PostFormValue("name"), Bio: r.PostFormValue("bio")}
	if err == nil {
		err = s.Store.SetAbout(r.Context(), u.ID, form.Name, form.Bio)
	}
	if err == nil {
		http.Redirect(w, r, retwis.ProfilePath(u.Username), http.StatusSeeOther)
		return
	}
	status, ok := s.FormRefused(w, r, status, err)
	if !ok {
		return
	}
	if len(form.Name) > 4*retwis.MaxDisplayNameLen || len(form.Bio) > 4*retwis.MaxBioLen {
		form = page.AboutForm{} // not worth showing again
	}
	s.Render(w, r, status, "settings", page.View{Title: "Settings", Viewer: &u, Error: retwis.ErrorMessage(err), About: form})
}

// refuseSettings shows the settings page again with why a form of it
// was refused (err, answered with status, or err's own if 0), for the
// forms that keep nothing of what was typed (passwords).
func (s *Server) refuseSettings(w http.ResponseWriter, r *http.Request, u retwis.User, status int, err error) {
	status, ok := s.FormRefused(w, r, status, err)
	if !ok {
		return
	}
	name, bio, aerr := s.Store.About(r.Context(), u.ID)
	if aerr != nil {
		s.MW.Fail(w, r, aerr)
		return
	}
	s.Render(w, r, status, "settings", page.View{Title: "Settings", Viewer: &u, Error: retwis.ErrorMessage(err), About: page.AboutForm{Name: name, Bio: bio}})
}
