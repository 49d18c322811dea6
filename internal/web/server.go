// Package web is retwis's HTML interface: one handler per file on a
// standard library mux, rendering html/template pages embedded in the
// binary through the pages' kit (package page, page/templates/), and the
// static files of package assets. Every page works without JavaScript;
// three small scripts make some nicer where it runs:
// static/complete.js suggests tags and people in the search boxes,
// static/live.js tells the reader of a timeline that new posts have come
// (through the streaming API's Server-Sent Events, which the session
// cookie opens), and static/counter.js counts down what is left of a
// post beside each compose box (and shows its rows of pictures one at a
// time). The plumbing it shares with the other
// interfaces (the viewer, error statuses, request logging and limits,
// the client's address) is internal/middleware's; what is its own is the
// cookie, the forms and how pages look. internal/mux mounts it at "/",
// beside the client API and its streams.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/web/assets"
	"github.com/retwis/retwis/internal/web/complete"
	"github.com/retwis/retwis/internal/web/page"
)

// PageSize is the number of posts on a page of the home or profile timeline.
const PageSize = 10

// Options configure a Server.
type Options struct {
	Store *store.Store
	// Deleter deletes accounts (POST /settings/delete) and tells how far
	// the deletion of a deleted account has got (its old profile).
	Deleter *deletion.Deleter
	// Media takes pictures (posts', avatars and headers) and serves them.
	Media *media.Service
	Log   *slog.Logger
	// SecureCookies marks the auth cookie Secure on every request, for a
	// server behind a proxy that terminates TLS (requests served over TLS
	// by the server itself get it anyway).
	SecureCookies bool
	// Metrics, if not nil, receives the request metrics.
	Metrics prometheus.Registerer
	// Writes is how many posts, follows and deletions run at once; the
	// others wait their turn, so that pages stay fast during a burst of
	// them. Zero means no limit.
	Writes int
	// Limits are the rate limits of logging in and signing up (zero:
	// none); Proxies the proxies whose X-Forwarded-For is believed, for
	// the limits per client address.
	Limits  Limits
	Proxies []netip.Prefix
	// LogStatic logs every answer of a static file, not only those that
	// fail or are slow (middleware.Options.LogStatic).
	LogStatic bool
}

// Limits are the rate limits of the pages' forms that need no account:
// an attempt beyond one is refused with 429 before any password is
// hashed.
type Limits struct {
	Login        retwis.Rate // login attempts per client address
	LoginAccount retwis.Rate // login attempts per account, from anywhere
	// LoginDevice is the login attempts per known device (a browser that
	// logged in to the account before), instead of the two above.
	LoginDevice retwis.Rate
	Signups     retwis.Rate // sign-ups per client address
}

// Server serves retwis's pages. It keeps no state of its own between
// requests (sessions live in Redis), so any number can run side by side.
// Its handlers, one a file, render through the embedded page.Kit.
type Server struct {
	*page.Kit
	deleter *deletion.Deleter
	media   *media.Service // nil: no pictures taken
	limits  Limits
	dynamic http.Handler // the pages, behind the middleware
	static  http.Handler // the static files, behind theirs
}

// New returns a Server; it fails only if the embedded templates are broken.
func New(opts Options) (*Server, error) {
	kit, err := page.New(opts.Store, opts.Log, opts.SecureCookies, middleware.Options{
		Metrics: opts.Metrics, Writes: opts.Writes, Proxies: opts.Proxies, LogStatic: opts.LogStatic,
	})
	if err != nil {
		return nil, err
	}
	s := &Server{Kit: kit, deleter: opts.Deleter, media: opts.Media, limits: opts.Limits}
	s.routes()
	return s, nil
}

// Register registers the pages on mux at "/", and the
// static files at "GET /static/", so that a request for one of those is
// routed once, by mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.Handle("/", s.dynamic)
	mux.Handle(staticRoute, s.static)
}

// staticRoute is the route of the static files.
const staticRoute = "GET /static/"

// routes builds the handler of the pages, behind the middleware, and
// that of the static files.
func (s *Server) routes() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.notFound)
	s.pageRoutes(mux)
	// Browsers say where a request comes from (Sec-Fetch-Site, Origin);
	// cross-site state changes are refused. Clients that send neither
	// header, such as curl, are not browsers and pass.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(s.CrossOrigin))
	s.dynamic = s.MW.Wrap(cop.Handler(s.LimitBodies(mux, s.uploadBytes(), "POST /post", "POST /settings")))
	// The static files take a shorter stack: no deadline, body cap or
	// cross-origin check, which a GET of bytes in memory has no use for.
	s.static = s.MW.WrapStatic(staticRoute, assets.Handler())
}

// uploadBytes caps the body of a form with pictures: as many as a post
// may have, each as large as the media service takes, and the rest of
// the form (0: no pictures taken).
func (s *Server) uploadBytes() int64 {
	if s.media == nil {
		return 0
	}
	return int64(retwis.MaxAttachments)*s.media.Limits().MaxBytes + 1<<20
}

// pageRoutes registers the pages and forms on mux.
func (s *Server) pageRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", s.MW.Viewer(s.home))
	mux.HandleFunc("POST /register", s.MW.Hashing(s.register))
	mux.HandleFunc("POST /login", s.MW.Hashing(s.login))
	mux.HandleFunc("POST /logout", s.RequireLogin(s.logout))
	mux.HandleFunc("POST /post", s.RequireLogin(s.MW.Throttle(s.createPost)))
	mux.HandleFunc("GET /u/{username}", s.MW.Viewer(s.profile))
	mux.HandleFunc("POST /u/{username}/follow", s.RequireLogin(s.MW.Throttle(s.follow)))
	mux.HandleFunc("POST /u/{username}/unfollow", s.RequireLogin(s.MW.Throttle(s.unfollow)))
	mux.HandleFunc("POST /u/{username}/remove-follower", s.RequireLogin(s.MW.Throttle(s.removeFollower)))
	mux.HandleFunc("POST /u/{username}/dismiss", s.RequireLogin(s.MW.Throttle(s.dismissSuggestion)))
	for action, handle := range map[string]http.HandlerFunc{"block": s.block, "unblock": s.unblock, "mute": s.mute, "unmute": s.unmute} {
		mux.HandleFunc("POST /u/{username}/"+action, s.RequireLogin(s.MW.Throttle(handle)))
	}
	mux.HandleFunc("GET /settings/blocks", s.RequireLogin(s.listBlocks))
	mux.HandleFunc("GET /lists", s.RequireLogin(s.showLists))
	mux.HandleFunc("POST /lists", s.RequireLogin(s.MW.Throttle(s.changeList)))
	mux.HandleFunc("GET /lists/{id}", s.RequireLogin(s.showLists))
	mux.HandleFunc("POST /lists/{id}", s.RequireLogin(s.MW.Throttle(s.changeList)))
	mux.HandleFunc("GET /settings/filters", s.RequireLogin(func(w http.ResponseWriter, r *http.Request) { s.showFilters(w, r, http.StatusOK, nil) }))
	mux.HandleFunc("POST /settings/filters", s.RequireLogin(s.editFilters))
	mux.HandleFunc("POST /report", s.RequireLogin(s.MW.Throttle(s.createReport)))
	mux.HandleFunc("GET /admin", s.requireModerator(s.admin))
	for path, act := range map[string]http.HandlerFunc{
		"suspend":       s.adminAct(retwis.Suspend, s.adminSuspend),
		"unsuspend":     s.adminAct(retwis.Unsuspend, s.adminUnsuspend),
		"delete-post":   s.adminAct(retwis.DeletePost, s.adminDeletePost),
		"reports/close": s.adminAct(retwis.CloseReport, s.adminCloseReport),
	} {
		mux.HandleFunc("POST /admin/"+path, s.requireModerator(s.MW.Throttle(act)))
	}
	mux.HandleFunc("GET /u/{username}/followers", s.MW.Viewer(s.followList("followers")))
	mux.HandleFunc("GET /u/{username}/following", s.MW.Viewer(s.followList("following")))
	mux.HandleFunc("GET /timeline", s.MW.Viewer(s.timeline))
	mux.HandleFunc("GET /p/{id}", s.MW.Viewer(s.permalink))
	mux.HandleFunc("GET /tag/{tag}", s.MW.Viewer(s.tag))
	mux.HandleFunc("POST /tag/{tag}/follow", s.RequireLogin(s.MW.Throttle(s.followTag(true))))
	mux.HandleFunc("POST /tag/{tag}/unfollow", s.RequireLogin(s.MW.Throttle(s.followTag(false))))
	mux.HandleFunc("GET "+followedTagsPath, s.RequireLogin(s.listFollowedTags))
	mux.HandleFunc("GET /mentions", s.RequireLogin(s.postList("Mentions", "mentions", s.Store.Mentions)))
	mux.HandleFunc("GET /direct", s.RequireLogin(s.direct))
	// Off the viewer's Direct page (not the others'), until a new post brings it back.
	mux.HandleFunc("POST /direct/{id}/remove", s.RequireLogin(s.MW.Throttle(s.onID(s.Store.DeleteConversation, "/direct"))))
	mux.HandleFunc("GET /scheduled", s.RequireLogin(s.listScheduled))
	mux.HandleFunc("POST /scheduled/{id}/cancel", s.RequireLogin(s.onID(scheduled.New(s.Store).Cancel, "/scheduled")))
	mux.HandleFunc("POST /announcements/{id}/dismiss", s.RequireLogin(s.onID(announcements.New(s.Store).Dismiss, "/")))
	mux.HandleFunc("GET /notifications", s.RequireLogin(s.notifications))
	mux.HandleFunc("POST /notifications/clear", s.RequireLogin(s.clearNotifications))
	mux.HandleFunc("GET /settings", s.RequireLogin(s.editSettings))
	mux.HandleFunc("POST /settings", s.RequireLogin(s.MW.Throttle(s.saveSettings)))
	mux.HandleFunc("GET /tags", s.MW.Viewer(s.searchTags))
	completions := complete.New(s.Store, s.Log)
	mux.HandleFunc("GET /complete/tags", completions.Tags)
	mux.HandleFunc("GET /search", s.MW.Viewer(s.search))
	mux.HandleFunc("GET /complete/people", completions.People)
	mux.HandleFunc("GET /explore", s.MW.Viewer(s.explore))
	for _, p := range []string{"/oauth/authorize", "/oauth/authorize/{$}"} { // apps write either, as for Mastodon
		mux.HandleFunc("GET "+p, s.MW.Viewer(s.authorize))
		mux.HandleFunc("POST "+p, s.RequireLogin(s.decideAuthorize))
	}
	mux.HandleFunc("GET /settings/apps", s.RequireLogin(s.listTokens))
	mux.HandleFunc("GET /settings/sessions", s.RequireLogin(s.listSessions))
	mux.HandleFunc("POST /settings/sessions/end", s.RequireLogin(s.endSession))
	mux.HandleFunc("GET /settings/export", s.RequireLogin(s.exportData))
	mux.HandleFunc("POST /settings/password", s.RequireLogin(s.MW.Throttle(s.MW.Hashing(s.changePassword))))
	mux.HandleFunc("POST /settings/delete", s.RequireLogin(s.MW.Throttle(s.MW.Hashing(s.deleteAccount))))
	mux.HandleFunc("POST /settings/apps/revoke", s.RequireLogin(s.revokeToken))
	mux.HandleFunc("POST /settings/apps/token", s.RequireLogin(s.MW.Throttle(s.createToken)))
	mux.HandleFunc("POST /p/{id}/delete", s.RequireLogin(s.MW.Throttle(s.deletePost)))
	mux.HandleFunc("GET /p/{id}/edit", s.RequireLogin(s.editPost))
	mux.HandleFunc("POST /p/{id}/edit", s.RequireLogin(s.MW.Throttle(s.editPost)))
	mux.HandleFunc("GET /p/{id}/history", s.MW.Viewer(s.editPost))
	for action, act := range map[string]func(ctx context.Context, uid, pid int64) (retwis.Post, error){"favourite": s.Store.Favourite,
		"unfavourite": s.Store.Unfavourite, "bookmark": s.Store.Bookmark, "unbookmark": s.Store.Unbookmark, "pin": s.Store.Pin, "unpin": s.Store.Unpin,
		"boost": s.Store.Boost, "unboost": s.Store.Unboost} {
		mux.HandleFunc("POST /p/{id}/"+action, s.RequireLogin(s.MW.Throttle(s.markPost(act))))
	}
	mux.HandleFunc("GET /favourites", s.RequireLogin(s.postList("Favourites", "marked", s.Store.Favourites)))
	mux.HandleFunc("GET /bookmarks", s.RequireLogin(s.postList("Bookmarks", "marked", s.Store.Bookmarks)))
	// The form routes answer only POST; someone who types one of them in,
	// or reloads after a failed form, is sent home rather than shown a 404.
	for _, path := range []string{"/register", "/login", "/logout", "/post"} {
		mux.Handle("GET "+path, http.RedirectHandler("/", http.StatusSeeOther))
	}
}
