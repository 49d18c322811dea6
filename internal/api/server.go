// Package api is retwis's client API: the part of the Mastodon client
// API that a microblog with retwis's features needs, so that existing
// Mastodon apps and libraries can use a retwis server. It answers JSON
// on the same mux as the HTML interface, with its own middleware (JSON
// errors, bearer tokens, CORS) and the same store. Its Server composes
// the API's parts: the routes of statuses, accounts, timelines,
// notifications, search and conversations, its own, one handler per
// file, named for its route; those of its feature packages beside it
// (each a Server of its own on the same kit); and its OpenAPI document,
// openapi.json, which describes them all. What every part shares, the
// way with HTTP, is apiwire's; the entities are entity's. Mastodon's
// streaming API is internal/streaming's, which renders its events and
// answers its errors with those two packages.
package api

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/instance"
	"github.com/retwis/retwis/internal/api/oauth"
)

// Options configure a Server: those of the kit every part of the API
// shares (apiwire.Options).
type Options = apiwire.Options

// Server serves the client API.
type Server struct {
	*apiwire.Kit
	handler http.Handler
}

// New returns a Server.
func New(opts Options) *Server {
	s := &Server{Kit: apiwire.New(opts)}
	mux := http.NewServeMux()
	s.routes(mux)
	oauth.New(s.Kit).Register(mux)
	instance.New(s.Kit).Register(mux)
	s.handler = s.Handler(mux)
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
	mux.HandleFunc("/", apiwire.NotFound)
	mux.HandleFunc("GET /api/v1/openapi.json", serveOpenAPI)

	mux.HandleFunc("GET /api/v1/accounts/verify_credentials", s.Need("profile", s.verifyCredentials))
	mux.HandleFunc("PATCH /api/v1/accounts/update_credentials", s.Need(writeAccounts, s.MW.Throttle(s.updateCredentials)))
	mux.HandleFunc("GET /api/v1/accounts/lookup", s.May(readAccounts, s.lookupAccount))
	mux.HandleFunc("GET /api/v1/accounts/relationships", s.Need(readFollows, s.relationships))
	mux.HandleFunc("GET /api/v1/accounts/search", s.Need(readAccounts, s.searchAccounts))
	mux.HandleFunc("GET /api/v1/preferences", s.Need(readAccounts, preferences))
	mux.HandleFunc("GET /api/v1/accounts/{id}", s.May(readAccounts, s.account))
	mux.HandleFunc("GET /api/v1/accounts/{id}/statuses", s.May(readStatuses, s.accountStatuses))
	mux.HandleFunc("GET /api/v1/accounts/{id}/followers", s.May(readAccounts, s.followList(followersList)))
	mux.HandleFunc("GET /api/v1/accounts/{id}/following", s.May(readAccounts, s.followList(followingList)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/follow", s.Need(writeFollows, s.MW.Throttle(s.follow)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unfollow", s.Need(writeFollows, s.MW.Throttle(s.unfollow)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/block", s.Need(writeBlocks, s.MW.Throttle(s.block)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unblock", s.Need(writeBlocks, s.MW.Throttle(s.unblock)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/mute", s.Need(writeMutes, s.MW.Throttle(s.mute)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unmute", s.Need(writeMutes, s.MW.Throttle(s.unmute)))
	mux.HandleFunc("POST /api/v1/reports", s.Need("write:reports", s.MW.Throttle(s.createReport)))
	mux.HandleFunc("GET /api/v1/blocks", s.Need("read:blocks", s.blocks))
	mux.HandleFunc("GET /api/v1/mutes", s.Need("read:mutes", s.mutes))

	mux.HandleFunc("POST /api/v1/statuses", s.Need(writeStatuses, s.MW.Throttle(s.createStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}", s.May(readStatuses, s.status))
	mux.HandleFunc("DELETE /api/v1/statuses/{id}", s.Need(writeStatuses, s.MW.Throttle(s.deleteStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/context", s.May(readStatuses, s.statusContext))
	mux.HandleFunc("GET /api/v1/statuses/{id}/reblogged_by", s.May(readStatuses, s.whoMarked(s.Store.RebloggedBy)))
	mux.HandleFunc("POST /api/v1/statuses/{id}/reblog", s.Need(writeStatuses, s.MW.Throttle(s.reblog)))
	mux.HandleFunc("POST /api/v1/statuses/{id}/unreblog", s.Need(writeStatuses, s.MW.Throttle(s.unreblog)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/favourited_by", s.May(readStatuses, s.whoMarked(s.Store.Favouriters)))
	for scope, acts := range map[string]map[string]markAction{
		writeFavourites: {"favourite": s.Store.Favourite, "unfavourite": s.Store.Unfavourite},
		writeBookmarks:  {"bookmark": s.Store.Bookmark, "unbookmark": s.Store.Unbookmark},
		writeAccounts:   {"pin": s.Store.Pin, "unpin": s.Store.Unpin},
	} {
		for action, act := range acts {
			mux.HandleFunc("POST /api/v1/statuses/{id}/"+action, s.Need(scope, s.MW.Throttle(s.markStatus(act))))
		}
	}
	mux.HandleFunc("GET /api/v1/favourites", s.Need("read:favourites", s.markedStatuses(s.Store.Favourites)))
	mux.HandleFunc("GET /api/v1/bookmarks", s.Need("read:bookmarks", s.markedStatuses(s.Store.Bookmarks)))
	mux.HandleFunc("PUT /api/v1/statuses/{id}", s.Need(writeStatuses, s.MW.Throttle(s.editStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/history", s.May(readStatuses, s.statusHistory))
	mux.HandleFunc("GET /api/v1/statuses/{id}/source", s.Need(readStatuses, s.statusSource))
	mux.HandleFunc("POST /api/v1/media", s.Need(writeMedia, apiwire.Unsupported))
	mux.HandleFunc("POST /api/v2/media", s.Need(writeMedia, apiwire.Unsupported))
	mux.HandleFunc("POST /api/v1/polls/{id}/votes", s.Need(writeStatuses, apiwire.Unsupported))

	mux.HandleFunc("GET /api/v1/timelines/home", s.Need(readStatuses, s.homeTimeline))
	mux.HandleFunc("GET /api/v1/timelines/public", s.May(readStatuses, s.publicTimeline))
	mux.HandleFunc("GET /api/v1/timelines/tag/{hashtag}", s.May(readStatuses, s.tagTimeline))

	mux.HandleFunc("GET /api/v1/conversations", s.Need(readStatuses, s.conversations))
	mux.HandleFunc("POST /api/v1/conversations/{id}/read", s.Need(writeConversation, s.readConversation))
	mux.HandleFunc("DELETE /api/v1/conversations/{id}", s.Need(writeConversation, s.deleteConversation))
	mux.HandleFunc("GET /api/v1/notifications", s.Need(readNotifications, s.notifications))
	mux.HandleFunc("GET /api/v1/notifications/{id}", s.Need(readNotifications, s.notification))
	mux.HandleFunc("GET /api/v2/search", s.May(readSearch, s.search))
	mux.HandleFunc("GET /api/v1/trends/tags", s.trendingTags)
	mux.HandleFunc("GET /api/v1/trends", s.trendingTags)
	mux.HandleFunc("GET /api/v1/trends/statuses", apiwire.EmptyList) // what apps' explore pages read beside the tags
	mux.HandleFunc("GET /api/v1/trends/links", apiwire.EmptyList)

	// What retwis has none of: empty lists, so that apps show nothing
	// rather than an error.
	for path, scope := range map[string]string{"lists": "read:lists", "filters": "read:filters",
		"follow_requests": readFollows, "followed_tags": readFollows,
		"announcements": "read", "endorsements": readAccounts} {
		mux.HandleFunc("GET /api/v1/"+path, s.Need(scope, apiwire.EmptyList))
	}
	mux.HandleFunc("GET /api/v2/filters", s.Need("read:filters", apiwire.EmptyList))
	mux.HandleFunc("GET /api/v1/accounts/{id}/featured_tags", s.May(readAccounts, apiwire.EmptyList))
	mux.HandleFunc("GET /api/v1/markers", s.Need(readStatuses, apiwire.EmptyObject))
}
