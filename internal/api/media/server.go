// Package media is the client API's media (media.go): pictures uploaded
// for posts, as Mastodon's apps upload them before they post (POST
// /api/v2/media, then media_ids[] on POST /api/v1/statuses), processed
// off the request path by the media service (internal/media), and their
// alt text and focal point set until they are attached.
package media

import (
	"cmp"
	"net/http"
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the media routes of the client API, on the API's kit.
type Server struct {
	*apiwire.Kit
	wait time.Duration // how long POST /api/v2/media waits (0: readyWait)
}

// Routes registers the routes on mux, the client API's. Every route
// takes write:media, as Mastodon's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/media", s.Need(apiwire.WriteMedia, s.uploads(s.upload(0))))
	mux.HandleFunc("POST /api/v2/media", s.Need(apiwire.WriteMedia, s.uploads(s.upload(cmp.Or(s.wait, readyWait)))))
	mux.HandleFunc("GET /api/v1/media/{id}", s.Need(apiwire.WriteMedia, s.served(s.show)))
	mux.HandleFunc("PUT /api/v1/media/{id}", s.Need(apiwire.WriteMedia, s.served(s.MW.Throttle(s.describe))))
}

// uploads wraps an upload route: a body of one picture (and served as
// served serves). It is not throttled as the writes are: it waits for
// the media service's pool, whose queue bounds the uploads (ErrBusy),
// and would hold a write's slot for the whole processing.
func (s *Server) uploads(next http.HandlerFunc) http.HandlerFunc {
	if s.Media == nil {
		return s.served(next)
	}
	return apiwire.Upload(s.Media.Limits().MaxBytes, 1, next)
}

// served wraps a route of media: without a media service (Kit.Media),
// it answers 422.
func (s *Server) served(next http.HandlerFunc) http.HandlerFunc {
	if s.Media == nil {
		return apiwire.Unsupported
	}
	return next
}
