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
	v := page.View{Title: "Settings", Viewer: &u, About: s.aboutForm(r.Context(), u.ID, name, bio)}
	if v.Moderator, err = s.Store.IsModerator(r.Context(), u.ID); err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	if r.URL.Query().Get("password") == "changed" {
		v.Notice = "Your password is changed, and you are logged out everywhere else."
	}
	s.Render(w, r, http.StatusOK, "settings", v)
}

// saveSettings serves POST /settings with name and bio, and, as a
// multipart form, the files avatar and header (or the boxes
// avatar_remove and header_remove, which take them away): saved, it goes
// to the viewer's profile; refused, the form shows again with the reason
// and what was typed, and nothing is saved: the text is checked before
// any picture is processed, and the pictures processed before anything
// is written.
func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	files, status, err := page.ParseFiles(r, "avatar", "header")
	name, bio := r.PostFormValue("name"), r.PostFormValue("bio")
	if err == nil {
		err = checkAbout(name, bio)
	}
	var got map[string]retwis.Attachment
	if err == nil {
		got, err = s.takePictures(r.Context(), u.ID, files)
	}
	if err == nil {
		err = s.Store.SetAbout(r.Context(), u.ID, name, bio)
	}
	if err == nil {
		err = s.savePictures(r.Context(), u.ID, got, r)
	}
	if err == nil {
		http.Redirect(w, r, retwis.ProfilePath(u.Username), http.StatusSeeOther)
		return
	}
	status, ok := s.FormRefused(w, r, status, err)
	if !ok {
		return
	}
	if len(name) > 4*retwis.MaxDisplayNameLen || len(bio) > 4*retwis.MaxBioLen {
		name, bio = "", "" // not worth showing again
	}
	msg := retwis.ErrorMessage(err)
	if pictures(files, "avatar")+pictures(files, "header") > 0 {
		msg += " Please choose the pictures again."
	}
	s.Render(w, r, status, "settings", page.View{Title: "Settings", Viewer: &u, Error: msg, About: s.aboutForm(r.Context(), u.ID, name, bio)})
}

// checkAbout refuses a display name or bio that SetAbout would.
func checkAbout(name, bio string) error {
	if _, err := retwis.NormalizeDisplayName(name); err != nil {
		return err
	}
	_, err := retwis.NormalizeBio(bio)
	return err
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
	s.Render(w, r, status, "settings", page.View{Title: "Settings", Viewer: &u, Error: retwis.ErrorMessage(err), About: s.aboutForm(r.Context(), u.ID, name, bio)})
}
