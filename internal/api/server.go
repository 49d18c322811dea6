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
	"strings"

	"github.com/retwis/retwis/internal/api/announcements"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/filters"
	"github.com/retwis/retwis/internal/api/hashtags"
	"github.com/retwis/retwis/internal/api/instance"
	"github.com/retwis/retwis/internal/api/lists"
	"github.com/retwis/retwis/internal/api/markers"
	"github.com/retwis/retwis/internal/api/media"
	"github.com/retwis/retwis/internal/api/oauth"
	"github.com/retwis/retwis/internal/api/push"
	"github.com/retwis/retwis/internal/api/scheduled"
	"github.com/retwis/retwis/internal/api/suggestions"
	"github.com/retwis/retwis/internal/store/schema"
)

// Options configure a Server: those of the kit every part of the API
// shares (apiwire.Options).
type Options = apiwire.Options

// Site is what the instance says of itself (apiwire.Site).
type Site = apiwire.Site

// Server serves the client API.
type Server struct {
	*apiwire.Kit
	tags      *hashtags.Server
	handler   http.Handler
	scheduled *scheduled.Server // POST /api/v1/statuses with scheduled_at
}

// New returns a Server.
func New(opts Options) *Server {
	s := &Server{Kit: apiwire.New(opts)}
	s.tags = &hashtags.Server{Kit: s.Kit}
	s.scheduled = &scheduled.Server{Kit: s.Kit}
	mux := http.NewServeMux()
	s.routes(mux)
	s.tags.Routes(mux)
	(&oauth.Server{Kit: s.Kit}).Routes(mux)
	(&instance.Server{Kit: s.Kit}).Routes(mux)
	(&markers.Server{Kit: s.Kit}).Routes(mux)
	(&lists.Server{Kit: s.Kit}).Routes(mux)
	(&push.Server{Kit: s.Kit}).Routes(mux)
	(&suggestions.Server{Kit: s.Kit}).Routes(mux)
	(&filters.Server{Kit: s.Kit}).Routes(mux)
	s.scheduled.Routes(mux)
	(&announcements.Server{Kit: s.Kit}).Routes(mux)
	(&media.Server{Kit: s.Kit}).Routes(mux)
	s.handler = s.Handler(mux)
	return s
}

// Register mounts the API on mux, the top-level mux it shares with the
// HTML interface: everything under /api/, OAuth's token, revocation and
// userinfo endpoints and its metadata (its authorization page is an
// HTML page), each also with a trailing slash, and nodeinfo
// (instance.Paths).
func (s *Server) Register(mux *http.ServeMux) {
	mux.Handle("/api/", s.handler)
	for _, p := range append([]string{"/oauth/token", "/oauth/revoke", "/oauth/userinfo", "/.well-known/oauth-authorization-server"}, instance.Paths...) {
		mux.Handle(p, s.handler)
		if !strings.HasSuffix(p, "/") { // a subtree has its trailing slash
			mux.Handle(p+"/{$}", s.handler)
		}
	}
}

// routes registers the API on mux.
func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("/", apiwire.Unrouted(mux, apiwire.NotFound))
	mux.HandleFunc("GET /api/v1/openapi.json", serveOpenAPI)

	mux.HandleFunc("GET /api/v1/accounts/verify_credentials", s.Need(apiwire.Profile, s.verifyCredentials))
	mux.HandleFunc("PATCH /api/v1/accounts/update_credentials", s.Need(apiwire.WriteAccounts, apiwire.Upload(s.pictureBytes(), 2, s.MW.Throttle(s.updateCredentials))))
	mux.HandleFunc("DELETE /api/v1/profile/avatar", s.Need(apiwire.WriteAccounts, s.MW.Throttle(s.clearPicture(schema.FieldAvatar))))
	mux.HandleFunc("DELETE /api/v1/profile/header", s.Need(apiwire.WriteAccounts, s.MW.Throttle(s.clearPicture(schema.FieldHeader))))
	mux.HandleFunc("GET /api/v1/accounts/lookup", s.May(apiwire.ReadAccounts, s.lookupAccount))
	mux.HandleFunc("GET /api/v1/accounts/relationships", s.Need(apiwire.ReadFollows, s.relationships))
	mux.HandleFunc("GET /api/v1/accounts/familiar_followers", s.Need(apiwire.ReadFollows, s.familiarFollowers))
	mux.HandleFunc("GET /api/v1/accounts/search", s.Need(apiwire.ReadAccounts, s.searchAccounts))
	mux.HandleFunc("GET /api/v1/preferences", s.Need(apiwire.ReadAccounts, preferences))
	mux.HandleFunc("GET /api/v1/accounts/{id}", s.May(apiwire.ReadAccounts, s.account))
	mux.HandleFunc("GET /api/v1/accounts/{id}/statuses", s.May(apiwire.ReadStatuses, s.accountStatuses))
	mux.HandleFunc("GET /api/v1/accounts/{id}/followers", s.May(apiwire.ReadAccounts, s.followList(followersList)))
	mux.HandleFunc("GET /api/v1/accounts/{id}/following", s.May(apiwire.ReadAccounts, s.followList(followingList)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/follow", s.Need(apiwire.WriteFollows, s.MW.Throttle(s.follow)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unfollow", s.Need(apiwire.WriteFollows, s.MW.Throttle(s.unfollow)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/remove_from_followers", s.Need(apiwire.WriteFollows, s.MW.Throttle(s.removeFromFollowers)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/block", s.Need(apiwire.WriteBlocks, s.MW.Throttle(s.block)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unblock", s.Need(apiwire.WriteBlocks, s.MW.Throttle(s.unblock)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/mute", s.Need(apiwire.WriteMutes, s.MW.Throttle(s.mute)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/unmute", s.Need(apiwire.WriteMutes, s.MW.Throttle(s.unmute)))
	mux.HandleFunc("POST /api/v1/accounts/{id}/note", s.Need(apiwire.WriteAccounts, s.MW.Throttle(s.noteAccount)))
	mux.HandleFunc("POST /api/v1/reports", s.Need(apiwire.WriteReports, s.MW.Throttle(s.createReport)))
	mux.HandleFunc("GET /api/v1/blocks", s.Need(apiwire.ReadBlocks, s.blocks))
	mux.HandleFunc("GET /api/v1/domain_blocks", s.Need(apiwire.ReadBlocks, s.domainBlocks))
	mux.HandleFunc("POST /api/v1/domain_blocks", s.Need(apiwire.WriteBlocks, s.MW.Throttle(s.blockDomain)))
	mux.HandleFunc("DELETE /api/v1/domain_blocks", s.Need(apiwire.WriteBlocks, s.MW.Throttle(s.unblockDomain)))
	mux.HandleFunc("GET /api/v1/mutes", s.Need(apiwire.ReadMutes, s.mutes))

	mux.HandleFunc("POST /api/v1/statuses", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.createStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}", s.May(apiwire.ReadStatuses, s.status))
	mux.HandleFunc("DELETE /api/v1/statuses/{id}", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.deleteStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/context", s.May(apiwire.ReadStatuses, s.statusContext))
	mux.HandleFunc("GET /api/v1/statuses/{id}/reblogged_by", s.May(apiwire.ReadStatuses, s.whoMarked(s.Store.RebloggedBy)))
	mux.HandleFunc("POST /api/v1/statuses/{id}/reblog", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.reblog)))
	mux.HandleFunc("POST /api/v1/statuses/{id}/unreblog", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.unreblog)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/favourited_by", s.May(apiwire.ReadStatuses, s.whoMarked(s.Store.Favouriters)))
	for scope, acts := range map[string]map[string]markAction{
		apiwire.WriteFavourites: {"favourite": s.Store.Favourite, "unfavourite": s.Store.Unfavourite},
		apiwire.WriteBookmarks:  {"bookmark": s.Store.Bookmark, "unbookmark": s.Store.Unbookmark},
		apiwire.WriteAccounts:   {"pin": s.Store.Pin, "unpin": s.Store.Unpin},
	} {
		for action, act := range acts {
			mux.HandleFunc("POST /api/v1/statuses/{id}/"+action, s.Need(scope, s.MW.Throttle(s.markStatus(act))))
		}
	}
	mux.HandleFunc("GET /api/v1/favourites", s.Need(apiwire.ReadFavourites, s.markedStatuses(s.Store.Favourites)))
	mux.HandleFunc("GET /api/v1/bookmarks", s.Need(apiwire.ReadBookmarks, s.markedStatuses(s.Store.Bookmarks)))
	mux.HandleFunc("PUT /api/v1/statuses/{id}", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.editStatus)))
	mux.HandleFunc("GET /api/v1/statuses/{id}/history", s.May(apiwire.ReadStatuses, s.statusHistory))
	mux.HandleFunc("GET /api/v1/statuses/{id}/source", s.Need(apiwire.ReadStatuses, s.statusSource))
	mux.HandleFunc("POST /api/v1/polls/{id}/votes", s.Need(apiwire.WriteStatuses, apiwire.Unsupported))

	mux.HandleFunc("GET /api/v1/timelines/home", s.Need(apiwire.ReadStatuses, s.homeTimeline))
	mux.HandleFunc("GET /api/v1/timelines/public", s.May(apiwire.ReadStatuses, s.publicTimeline))
	mux.HandleFunc("GET /api/v1/timelines/tag/{hashtag}", s.May(apiwire.ReadStatuses, s.tagTimeline))

	mux.HandleFunc("GET /api/v1/conversations", s.Need(apiwire.ReadStatuses, s.conversations))
	mux.HandleFunc("POST /api/v1/conversations/{id}/read", s.Need(apiwire.WriteConversations, s.readConversation))
	mux.HandleFunc("DELETE /api/v1/conversations/{id}", s.Need(apiwire.WriteConversations, s.deleteConversation))
	mux.HandleFunc("GET /api/v1/notifications", s.Need(apiwire.ReadNotifications, s.notifications))
	mux.HandleFunc("GET /api/v1/notifications/{id}", s.Need(apiwire.ReadNotifications, s.notification))
	mux.HandleFunc("GET /api/v1/notifications/unread_count", s.Need(apiwire.ReadNotifications, s.unreadNotifications))
	mux.HandleFunc("POST /api/v1/notifications/{id}/dismiss", s.Need(apiwire.WriteNotifications, s.dismissNotification))
	mux.HandleFunc("POST /api/v1/notifications/clear", s.Need(apiwire.WriteNotifications, s.clearNotifications))
	mux.HandleFunc("GET /api/v1/notifications/policy", s.Need(apiwire.ReadNotifications, s.notificationPolicy(false)))
	mux.HandleFunc("PATCH /api/v1/notifications/policy", s.Need(apiwire.WriteNotifications, s.notificationPolicy(false)))
	mux.HandleFunc("GET /api/v2/notifications/policy", s.Need(apiwire.ReadNotifications, s.notificationPolicy(true)))
	mux.HandleFunc("PATCH /api/v2/notifications/policy", s.Need(apiwire.WriteNotifications, s.notificationPolicy(true)))
	mux.HandleFunc("GET /api/v2/search", s.May(apiwire.ReadSearch, s.search))
	mux.HandleFunc("GET /api/v1/search", s.May(apiwire.ReadSearch, s.searchV1))
	mux.HandleFunc("GET /api/oembed", s.oembed)
	mux.HandleFunc("GET /api/v1/directory", s.May(apiwire.ReadAccounts, s.directory))
	mux.HandleFunc("GET /api/v1/trends/tags", s.May("", s.trendingTags))
	mux.HandleFunc("GET /api/v1/trends", s.May("", s.trendingTags))
	mux.HandleFunc("GET /api/v1/trends/statuses", s.May("", s.trendingStatuses))
	mux.HandleFunc("GET /api/v1/trends/links", apiwire.EmptyList) // no link cards yet

	// What retwis has none of: empty lists, so that apps show nothing
	// rather than an error.
	for path, scope := range map[string]string{"follow_requests": apiwire.ReadFollows, "endorsements": apiwire.ReadAccounts} {
		mux.HandleFunc("GET /api/v1/"+path, s.Need(scope, apiwire.EmptyList))
	}
	for _, action := range []string{"authorize", "reject"} { // no account is locked: no request to decide
		mux.HandleFunc("POST /api/v1/follow_requests/{id}/"+action, s.Need(apiwire.WriteFollows, apiwire.NotFound))
	}
}
