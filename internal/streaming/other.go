package streaming

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// otherStream answers the paths under /api/v1/streaming/ that name no
// stream: a WebSocket asked for at /api/v1/streaming/ (where Mastodon's
// web client and many apps open it) is the one of /api/v1/streaming;
// anything else is refused, as Mastodon refuses it.
func (s *Server) otherStream(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/v1/streaming/" && isUpgrade(r) {
		s.streamWebSocket(w, r)
		return
	}
	apiwire.RenderError(w, r, http.StatusBadRequest, "Unknown channel requested")
}
