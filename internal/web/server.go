// Package web is retwis's HTML interface: one handler per file on a
// standard library mux, html/template pages embedded in the binary
// (templates/), and the static files of package assets. Every page works
// without JavaScript; three small scripts make some nicer where it runs:
// static/complete.js suggests tags and people in the search boxes,
// static/live.js tells the reader of a timeline that new posts have come
// (through the streaming API's Server-Sent Events, which the session
// cookie opens), and static/counter.js counts down what is left of a
// post beside each compose box. The plumbing it shares with the other
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
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/announcements"
	"github.com/retwis/retwis/internal/store/deletion"
	"github.com/retwis/retwis/internal/store/filters"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/web/assets"
	"github.com/retwis/retwis/internal/web/complete"
)

// PageSize is the number of posts on a page of the home or profile timeline.
const PageSize = 10

const (
	maxBodyBytes   = 16 << 10 // forms are small; anything bigger is refused with 413
	requestTimeout = 10 * time.Second
)

// formBytes caps request bodies: maxBodyBytes, or more on an instance
// whose posts may be so long (--max-post-chars) that a post of
// characters of four bytes, each sent as 12 ("%F0%9F%99%82"), would not
// fit in it.
func formBytes(maxPostChars int) int64 {
	return max(maxBodyBytes, 12*int64(maxPostChars)+4<<10)
}

// Options configure a Server.
type Options struct {
	Store *store.Store
	// Deleter deletes accounts (POST /settings/delete) and tells how far
	// the deletion of a deleted account has got (its old profile).
	Deleter *deletion.Deleter
	Log     *slog.Logger
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
type Server struct {
	store   *store.Store
	filters *filters.Store
	deleter *deletion.Deleter
	log     *slog.Logger
	secure  bool // the auth cookie is always Secure
	limits  Limits
	pages   *pageSet
	// buffers hold pages being rendered: a page is tens of kilobytes,
	// which a fresh buffer would reach by growing (and copying) often.
	buffers sync.Pool
	mw      *middleware.Stack
	dynamic http.Handler // the pages, behind the middleware
	static  http.Handler // the static files, behind theirs
}

// New returns a Server; it fails only if the embedded templates are broken.
func New(opts Options) (*Server, error) {
	maxPostChars := opts.Store.Opts.MaxPostChars
	pages, err := parseTemplates(maxPostChars)
	if err != nil {
		return nil, err
	}
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	s := &Server{store: opts.Store, filters: filters.New(opts.Store), deleter: opts.Deleter, log: log, secure: opts.SecureCookies, pages: pages, limits: opts.Limits}
	s.mw = middleware.New(middleware.Options{
		Log: log, RenderError: s.renderError, MaxBodyBytes: formBytes(maxPostChars), Timeout: requestTimeout,
		Auth: opts.Store, Credential: SessionCredential, Refused: s.clearAuthCookie, Metrics: opts.Metrics, Writes: opts.Writes,
		Proxies: opts.Proxies, LogStatic: opts.LogStatic,
	})
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
	cop.SetDenyHandler(http.HandlerFunc(s.crossOrigin))
	s.dynamic = s.mw.Wrap(cop.Handler(mux))
	// The static files take a shorter stack: no deadline, body cap or
	// cross-origin check, which a GET of bytes in memory has no use for.
	s.static = s.mw.WrapStatic(staticRoute, assets.Handler())
}

// pageRoutes registers the pages and forms on mux.
func (s *Server) pageRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", s.mw.Viewer(s.home))
	mux.HandleFunc("POST /register", s.mw.Hashing(s.register))
	mux.HandleFunc("POST /login", s.mw.Hashing(s.login))
	mux.HandleFunc("POST /logout", s.requireLogin(s.logout))
	mux.HandleFunc("POST /post", s.requireLogin(s.mw.Throttle(s.createPost)))
	mux.HandleFunc("GET /u/{username}", s.mw.Viewer(s.profile))
	mux.HandleFunc("POST /u/{username}/follow", s.requireLogin(s.mw.Throttle(s.follow)))
	mux.HandleFunc("POST /u/{username}/unfollow", s.requireLogin(s.mw.Throttle(s.unfollow)))
	mux.HandleFunc("POST /u/{username}/remove-follower", s.requireLogin(s.mw.Throttle(s.removeFollower)))
	mux.HandleFunc("POST /u/{username}/dismiss", s.requireLogin(s.mw.Throttle(s.dismissSuggestion)))
	for action, handle := range map[string]http.HandlerFunc{"block": s.block, "unblock": s.unblock, "mute": s.mute, "unmute": s.unmute} {
		mux.HandleFunc("POST /u/{username}/"+action, s.requireLogin(s.mw.Throttle(handle)))
	}
	mux.HandleFunc("GET /settings/blocks", s.requireLogin(s.listBlocks))
	mux.HandleFunc("GET /lists", s.requireLogin(s.showLists))
	mux.HandleFunc("POST /lists", s.requireLogin(s.mw.Throttle(s.changeList)))
	mux.HandleFunc("GET /lists/{id}", s.requireLogin(s.showLists))
	mux.HandleFunc("POST /lists/{id}", s.requireLogin(s.mw.Throttle(s.changeList)))
	mux.HandleFunc("GET /settings/filters", s.requireLogin(func(w http.ResponseWriter, r *http.Request) { s.showFilters(w, r, http.StatusOK, nil) }))
	mux.HandleFunc("POST /settings/filters", s.requireLogin(s.editFilters))
	mux.HandleFunc("POST /report", s.requireLogin(s.mw.Throttle(s.createReport)))
	mux.HandleFunc("GET /admin", s.requireModerator(s.admin))
	for path, act := range map[string]http.HandlerFunc{
		"suspend":       s.adminAct(retwis.Suspend, s.adminSuspend),
		"unsuspend":     s.adminAct(retwis.Unsuspend, s.adminUnsuspend),
		"delete-post":   s.adminAct(retwis.DeletePost, s.adminDeletePost),
		"reports/close": s.adminAct(retwis.CloseReport, s.adminCloseReport),
	} {
		mux.HandleFunc("POST /admin/"+path, s.requireModerator(s.mw.Throttle(act)))
	}
	mux.HandleFunc("GET /u/{username}/followers", s.mw.Viewer(s.followList("followers")))
	mux.HandleFunc("GET /u/{username}/following", s.mw.Viewer(s.followList("following")))
	mux.HandleFunc("GET /timeline", s.mw.Viewer(s.timeline))
	mux.HandleFunc("GET /p/{id}", s.mw.Viewer(s.permalink))
	mux.HandleFunc("GET /tag/{tag}", s.mw.Viewer(s.tag))
	mux.HandleFunc("POST /tag/{tag}/follow", s.requireLogin(s.mw.Throttle(s.followTag(true))))
	mux.HandleFunc("POST /tag/{tag}/unfollow", s.requireLogin(s.mw.Throttle(s.followTag(false))))
	mux.HandleFunc("GET "+followedTagsPath, s.requireLogin(s.listFollowedTags))
	mux.HandleFunc("GET /mentions", s.requireLogin(s.postList("Mentions", "mentions", s.store.Mentions)))
	mux.HandleFunc("GET /direct", s.requireLogin(s.direct))
	// Off the viewer's Direct page (not the others'), until a new post brings it back.
	mux.HandleFunc("POST /direct/{id}/remove", s.requireLogin(s.mw.Throttle(s.onID(s.store.DeleteConversation, "/direct"))))
	mux.HandleFunc("GET /scheduled", s.requireLogin(s.listScheduled))
	mux.HandleFunc("POST /scheduled/{id}/cancel", s.requireLogin(s.onID(scheduled.New(s.store).Cancel, "/scheduled")))
	mux.HandleFunc("POST /announcements/{id}/dismiss", s.requireLogin(s.onID(announcements.New(s.store).Dismiss, "/")))
	mux.HandleFunc("GET /notifications", s.requireLogin(s.notifications))
	mux.HandleFunc("POST /notifications/clear", s.requireLogin(s.clearNotifications))
	mux.HandleFunc("GET /settings", s.requireLogin(s.editSettings))
	mux.HandleFunc("POST /settings", s.requireLogin(s.mw.Throttle(s.saveSettings)))
	mux.HandleFunc("GET /tags", s.mw.Viewer(s.searchTags))
	completions := complete.New(s.store, s.log)
	mux.HandleFunc("GET /complete/tags", completions.Tags)
	mux.HandleFunc("GET /search", s.mw.Viewer(s.search))
	mux.HandleFunc("GET /complete/people", completions.People)
	mux.HandleFunc("GET /explore", s.mw.Viewer(s.explore))
	for _, p := range []string{"/oauth/authorize", "/oauth/authorize/{$}"} { // apps write either, as for Mastodon
		mux.HandleFunc("GET "+p, s.mw.Viewer(s.authorize))
		mux.HandleFunc("POST "+p, s.requireLogin(s.decideAuthorize))
	}
	mux.HandleFunc("GET /settings/apps", s.requireLogin(s.listTokens))
	mux.HandleFunc("GET /settings/sessions", s.requireLogin(s.listSessions))
	mux.HandleFunc("POST /settings/sessions/end", s.requireLogin(s.endSession))
	mux.HandleFunc("GET /settings/export", s.requireLogin(s.exportData))
	mux.HandleFunc("POST /settings/password", s.requireLogin(s.mw.Throttle(s.mw.Hashing(s.changePassword))))
	mux.HandleFunc("POST /settings/delete", s.requireLogin(s.mw.Throttle(s.mw.Hashing(s.deleteAccount))))
	mux.HandleFunc("POST /settings/apps/revoke", s.requireLogin(s.revokeToken))
	mux.HandleFunc("POST /settings/apps/token", s.requireLogin(s.mw.Throttle(s.createToken)))
	mux.HandleFunc("POST /p/{id}/delete", s.requireLogin(s.mw.Throttle(s.deletePost)))
	mux.HandleFunc("GET /p/{id}/edit", s.requireLogin(s.editPost))
	mux.HandleFunc("POST /p/{id}/edit", s.requireLogin(s.mw.Throttle(s.editPost)))
	mux.HandleFunc("GET /p/{id}/history", s.mw.Viewer(s.editPost))
	for action, act := range map[string]func(ctx context.Context, uid, pid int64) (retwis.Post, error){"favourite": s.store.Favourite,
		"unfavourite": s.store.Unfavourite, "bookmark": s.store.Bookmark, "unbookmark": s.store.Unbookmark, "pin": s.store.Pin, "unpin": s.store.Unpin,
		"boost": s.store.Boost, "unboost": s.store.Unboost} {
		mux.HandleFunc("POST /p/{id}/"+action, s.requireLogin(s.mw.Throttle(s.markPost(act))))
	}
	mux.HandleFunc("GET /favourites", s.requireLogin(s.postList("Favourites", "marked", s.store.Favourites)))
	mux.HandleFunc("GET /bookmarks", s.requireLogin(s.postList("Bookmarks", "marked", s.store.Bookmarks)))
	// The form routes answer only POST; someone who types one of them in,
	// or reloads after a failed form, is sent home rather than shown a 404.
	for _, path := range []string{"/register", "/login", "/logout", "/post"} {
		mux.Handle("GET "+path, http.RedirectHandler("/", http.StatusSeeOther))
	}
}
