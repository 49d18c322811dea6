// Package api is retwis's client API: the part of the Mastodon client
// API that a microblog with retwis's features needs, so that existing
// Mastodon apps and libraries can use a retwis server. It answers JSON
// on the same mux as the HTML interface, with its own middleware (JSON
// errors, bearer tokens, CORS) and the same store; one handler per
// file, named for its route. Mastodon's streaming API is
// internal/streaming's, which renders its events and answers its errors
// with what this package exports.
package api

import (
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
)

const (
	// maxBodyBytes caps request bodies: a status and its fields, or a
	// profile's, fit many times over.
	maxBodyBytes   = 64 << 10
	requestTimeout = 10 * time.Second
)

// Options configure a Server.
type Options struct {
	Store *store.Store
	Log   *slog.Logger
	// Metrics, if not nil, receives the request metrics (shared with the
	// HTML interface's, by route).
	Metrics prometheus.Registerer
	// Writes is how many posts, follows and deletions run at once; see
	// web.Options.Writes. Zero means no limit.
	Writes int
	// Rate limits the calls of each token, and of each client address
	// for calls without one (zero: no limit); Proxies are the proxies
	// whose X-Forwarded-For is believed for the address.
	Rate    retwis.Rate
	Proxies []netip.Prefix
}

// Server serves the client API.
type Server struct {
	store   *store.Store
	mw      *middleware.Stack
	rate    retwis.Rate
	handler http.Handler
}

// New returns a Server.
func New(opts Options) *Server {
	s := &Server{store: opts.Store, rate: opts.Rate}
	s.mw = middleware.New(middleware.Options{
		Log: opts.Log, RenderError: renderError, MaxBodyBytes: maxBodyBytes, Timeout: requestTimeout,
		Metrics: opts.Metrics, Writes: opts.Writes, Proxies: opts.Proxies,
	})
	mux := http.NewServeMux()
	s.routes(mux)
	s.handler = s.mw.Wrap(CORS(mux))
	return s
}

// Register mounts the API on mux, the top-level mux it shares with the
// HTML interface: everything under /api/, and OAuth's token and
// revocation endpoints (its authorization page is an HTML page).
func (s *Server) Register(mux *http.ServeMux) {
	for _, p := range []string{"/api/", "/oauth/token", "/oauth/revoke"} {
		mux.Handle(p, s.handler)
	}
}

// Scopes the routes need, as Mastodon's documentation names them.
const (
	readAccounts      = "read:accounts"
	readFollows       = "read:follows"
	readNotifications = "read:notifications"
	readSearch        = "read:search"
	readStatuses      = "read:statuses"
	writeAccounts     = "write:accounts"
	writeFollows      = "write:follows"
	writeBlocks       = "write:blocks"
	writeMutes        = "write:mutes"
	writeStatuses     = "write:statuses"
	writeMedia        = "write:media"
	writeFavourites   = "write:favourites"
	writeBookmarks    = "write:bookmarks"
	writeConversation = "write:conversations"
)

// routes registers the API on mux.
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("/", notFound)
	mux.HandleFunc("POST /api/v1/apps", s.limited(s.createApp))
	mux.HandleFunc("GET /api/v1/apps/verify_credentials", s.verifyApp)
	mux.HandleFunc("POST /oauth/token", s.limited(s.createToken))
	mux.HandleFunc("POST /oauth/revoke", s.limited(s.revokeToken))
	mux.HandleFunc("GET /api/v1/openapi.json", serveOpenAPI)

	mux.HandleFunc("GET /api/v1/instance", s.instanceV1)
	mux.HandleFunc("GET /api/v2/instance", s.instanceV2)
	mux.HandleFunc("GET /api/v1/custom_emojis", emptyList)
	mux.HandleFunc("GET /api/v1/instance/rules", emptyList)

	mux.HandleFunc("GET /api/v1/accounts/verify_credentials", s.need("profile", s.verifyCredentials))
	mux.HandleFunc("PATCH /api/v1/accounts/update_credentials", s.need(writeAccounts, s.mw.Throttle(s.updateCredentials)))
	mux.HandleFunc("GET /api/v1/accounts/lookup", s.may(readAccounts, s.lookupAccount))
	mux.HandleFunc("GET /api/v1/accounts/relationships", s.need(readFollows, s.relationships))
	mux.HandleFunc("GET /api/v1/accounts/search", s.need(readAccounts, s.searchAccounts))
	mux.HandleFunc("GET /api/v1/preferences", s.need(readAccounts, preferences))
	mux.HandleFunc("GET /api/v1/accounts/{id}", s.may(readAccounts, s.account))
	mux.HandleFunc("GET /api/v1/accounts/{id}/statuses", s.may(readStatuses, s.accountStatuses))
	mux.HandleFunc("GET /api/v1/accounts/{id}/followers", s.may(readAccounts, s.followList(followersList)))
	mux.HandleFunc("GET /api/v1/accounts/{id}/following", s.may(readAccounts, s.followList(followingList)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/follow", s.need(writeFollows, s.mw.Throttle(s.follow)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unfollow", s.need(writeFollows, s.mw.Throttle(s.unfollow)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/block", s.need(writeBlocks, s.mw.Throttle(s.block)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unblock", s.need(writeBlocks, s.mw.Throttle(s.unblock)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/mute", s.need(writeMutes, s.mw.Throttle(s.mute)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unmute", s.need(writeMutes, s.mw.Throttle(s.unmute)))
	mux.HandleFunc("POST /api/v1/reports", s.need("write:reports", s.mw.Throttle(s.createReport)))
	mux.HandleFunc("GET /api/v1/blocks", s.need("read:blocks", s.blocks))
	mux.HandleFunc("GET /api/v1/mutes", s.need("read:mutes", s.mutes))

	mux.HandleFunc("POST /api/v1/statuses", s.need(writeStatuses, s.mw.Throttle(s.createStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}", s.may(readStatuses, s.status))
	mux.HandleFunc("DELETE /api/v1/statuses/{id}", s.need(writeStatuses, s.mw.Throttle(s.deleteStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/context", s.may(readStatuses, s.statusContext))
	mux.HandleFunc("GET /api/v1/statuses/{id}/reblogged_by", s.may(readStatuses, s.whoMarked(s.store.RebloggedBy)))
	mux.HandleFunc("POST /api/v1/statuses/{id}/reblog", s.need(writeStatuses, s.mw.Throttle(s.reblog)))
	mux.HandleFunc("POST /api/v1/statuses/{id}/unreblog", s.need(writeStatuses, s.mw.Throttle(s.unreblog)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/favourited_by", s.may(readStatuses, s.whoMarked(s.store.Favouriters)))
	for scope, acts := range map[string]map[string]markAction{
		writeFavourites: {"favourite": s.store.Favourite, "unfavourite": s.store.Unfavourite},
		writeBookmarks:  {"bookmark": s.store.Bookmark, "unbookmark": s.store.Unbookmark},
		writeAccounts:   {"pin": s.store.Pin, "unpin": s.store.Unpin},
	} {
		for action, act := range acts {
			mux.HandleFunc("POST /api/v1/statuses/{id}/"+action, s.need(scope, s.mw.Throttle(s.markStatus(act))))
		}
	}
	mux.HandleFunc("GET /api/v1/favourites", s.need("read:favourites", s.markedStatuses(s.store.Favourites)))
	mux.HandleFunc("GET /api/v1/bookmarks", s.need("read:bookmarks", s.markedStatuses(s.store.Bookmarks)))
	mux.HandleFunc("PUT /api/v1/statuses/{id}", s.need(writeStatuses, s.mw.Throttle(s.editStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/history", s.may(readStatuses, s.statusHistory))
	mux.HandleFunc("GET /api/v1/statuses/{id}/source", s.need(readStatuses, s.statusSource))
	mux.HandleFunc("POST /api/v1/media", s.need(writeMedia, unsupported))
	mux.HandleFunc("POST /api/v2/media", s.need(writeMedia, unsupported))
	mux.HandleFunc("POST /api/v1/polls/{id}/votes", s.need(writeStatuses, unsupported))

	mux.HandleFunc("GET /api/v1/timelines/home", s.need(readStatuses, s.homeTimeline))
	mux.HandleFunc("GET /api/v1/timelines/public", s.may(readStatuses, s.publicTimeline))
	mux.HandleFunc("GET /api/v1/timelines/tag/{hashtag}", s.may(readStatuses, s.tagTimeline))

	mux.HandleFunc("GET /api/v1/conversations", s.need(readStatuses, s.conversations))
	mux.HandleFunc("POST /api/v1/conversations/{id}/read", s.need(writeConversation, s.readConversation))
	mux.HandleFunc("DELETE /api/v1/conversations/{id}", s.need(writeConversation, s.deleteConversation))
	mux.HandleFunc("GET /api/v1/notifications", s.need(readNotifications, s.notifications))
	mux.HandleFunc("GET /api/v1/notifications/{id}", s.need(readNotifications, s.notification))
	mux.HandleFunc("GET /api/v2/search", s.may(readSearch, s.search))
	mux.HandleFunc("GET /api/v1/trends/tags", s.trendingTags)
	mux.HandleFunc("GET /api/v1/trends", s.trendingTags)
	mux.HandleFunc("GET /api/v1/trends/statuses", emptyList) // what apps' explore pages read beside the tags
	mux.HandleFunc("GET /api/v1/trends/links", emptyList)

	// What retwis has none of: empty lists, so that apps show nothing
	// rather than an error.
	for path, scope := range map[string]string{"lists": "read:lists", "filters": "read:filters",
		"follow_requests": readFollows, "followed_tags": readFollows,
		"announcements": "read", "endorsements": readAccounts} {
		mux.HandleFunc("GET /api/v1/"+path, s.need(scope, emptyList))
	}
	mux.HandleFunc("GET /api/v2/filters", s.need("read:filters", emptyList))
	mux.HandleFunc("GET /api/v1/accounts/{id}/featured_tags", s.may(readAccounts, emptyList))
	mux.HandleFunc("GET /api/v1/markers", s.need(readStatuses, emptyObject))
}
