package streaming

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// unknownStream answers the paths under /api/v1/streaming/ that name
// no stream, as Mastodon refuses them. (A WebSocket asked for at
// /api/v1/streaming/, where Mastodon's web client and many apps open
// it, is the one of /api/v1/streaming: apiwire.TrimSlash routes it
// there.)
func unknownStream(w http.ResponseWriter, r *http.Request) {
	apiwire.RenderError(w, r, http.StatusBadRequest, "Unknown channel requested")
}
