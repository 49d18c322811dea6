package streaming

import "net/http"

// streamHealth answers GET /api/v1/streaming/health, which apps ask
// before they connect.
func streamHealth(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("OK"))
}
