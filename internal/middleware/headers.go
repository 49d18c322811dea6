package middleware

import "net/http"

// secureHeaders sets the headers every answer carries, whatever the
// interface and the route: no content sniffing, no referrer sent to
// other sites, no framing, and, over HTTPS (served here, or by a trusted
// proxy that says so: [Secure]), HSTS for a year. Pages add their CSP and caching.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		if Secure(r) {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}
