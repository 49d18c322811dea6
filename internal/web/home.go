package web

import (
	"context"
	"crypto/rand"
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// somePeople is how many people the welcome page suggests, whoToFollow
// how many the home page does.
const (
	somePeople  = 6
	whoToFollow = 5
)

// home serves GET /: the home timeline of a logged-in user, or the
// welcome page with the login and sign-up forms and some people drawn at
// random among the active.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	u, ok := middleware.ViewerFrom(r.Context())
	if !ok {
		v := page.View{Title: "Welcome"}
		var err error
		if v.People, err = s.Store.SomePeople(r.Context(), somePeople); err != nil {
			s.Log.Warn("some people", "err", err) // the page goes on without them
		}
		s.renderWelcome(w, r, http.StatusOK, v)
		return
	}
	c, ok := s.PageCursor(w, r, func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		p, _, err := s.Store.HomeTimeline(ctx, u.ID, c, n)
		return p, err
	})
	if !ok {
		return
	}
	s.renderHome(w, r, u, c, http.StatusOK, page.View{})
}

// renderHome renders the page of u's home timeline at cursor c; v carries
// a form error and the draft to show again after a failed post. It is
// one call of the store, which reads everything the page shows, the
// announcements not dismissed with it.
func (s *Server) renderHome(w http.ResponseWriter, r *http.Request, u retwis.User, c retwis.Cursor, status int, v page.View) {
	// Who to follow on the first page only, and not on a page that shows
	// a refused post: computing the suggestions keeps them in Redis, and
	// a refused request writes nothing.
	suggest := 0
	if c == (retwis.Cursor{}) && status == http.StatusOK {
		suggest = whoToFollow
	}
	q := page.StoreQuery(r, c, PageSize, status)
	q.MarkHome = suggest > 0 // the first page, after a request that succeeded: where the reader stopped
	news := announcements.New(s.Store).Pending(u.ID)
	q.Along = news.Start
	home, err := s.Store.HomePage(r.Context(), u.ID, q, suggest)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v.Title, v.Viewer, v.Page = "Home", &u, home.Page
	v.LoginFailures = page.LoginFailures{N: home.LoginFailures, Last: home.LastLoginFailure}
	v.Profile = retwis.Profile{User: u, Counts: home.Counts, DisplayName: home.DisplayName}
	v.Suggestions = home.Suggestions
	v.Announcements = news.Unread(r.Context(), time.Now())
	v.Unread, v.Counted = home.Unread, true
	v.PostKey = rand.Text()
	v.Newer, v.Older = paging.Links("/", home.Page)
	s.Render(w, r, status, "home", v)
}
