package middleware

import "net/http"

// The values of the headers every answer carries, built once: each
// answer's header map takes these slices as they are (set, never
// appended to in place), which spares the canonicalisation and the
// allocation of http.Header.Set on every request.
var (
	nosniff         = []string{"nosniff"}
	sameOrigin      = []string{"same-origin"}
	denyFrames      = []string{"DENY"}
	strictTransport = []string{"max-age=31536000"}
)

// secureHeaders sets the headers every answer carries (setSecureHeaders),
// over HTTPS as [Secure] reads it.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecureHeaders(w.Header(), Secure(r))
		next.ServeHTTP(w, r)
	})
}

// setSecureHeaders sets the headers every answer carries, whatever the
// interface and the route: no content sniffing, no referrer sent to
// other sites, no framing, and, over HTTPS (served here, or by a trusted
// proxy that says so), HSTS for a year. Pages add their CSP and caching.
func setSecureHeaders(h http.Header, secure bool) {
	h["X-Content-Type-Options"] = nosniff
	h["Referrer-Policy"] = sameOrigin
	h["X-Frame-Options"] = denyFrames
	if secure {
		h["Strict-Transport-Security"] = strictTransport
	}
}
