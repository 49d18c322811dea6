package apiwire

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// ErrorEntity is Mastodon's Error entity: what the API answers a
// request that failed, and OAuth's errors (RFC 6749, section 5.2).
type ErrorEntity struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// WriteJSON answers v as JSON with status. HTML in strings (a status's
// content) is left as it is, as Mastodon sends it, not \u-escaped.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // the entities are plain data: a bug
		status = http.StatusInternalServerError
		b.Reset()
		b.WriteString(`{"error":"The answer could not be written."}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// RenderError writes an error as Mastodon does: {"error": "..."}. It is
// the error renderer (middleware.ErrorRenderer) of the API's middleware
// stack, and of internal/streaming's.
func RenderError(w http.ResponseWriter, _ *http.Request, status int, msg string) {
	WriteJSON(w, status, ErrorEntity{Error: msg})
}

// StatusOf is the status of an error in Mastodon's dialect: the shared
// map (middleware.StatusOf), but for input that breaks a rule, which
// Mastodon answers with 422 Unprocessable Entity.
func StatusOf(err error) int {
	if retwis.ErrorKind(err) == retwis.Invalid {
		return http.StatusUnprocessableEntity
	}
	return middleware.StatusOf(err)
}

// BadRequest answers a request whose parameters cannot be read at all
// (err from Params).
func BadRequest(w http.ResponseWriter, r *http.Request, err error) {
	RenderError(w, r, ParamStatus(err), err.Error())
}

// NotFound answers a path the API does not have, or a record it does
// not find.
func NotFound(w http.ResponseWriter, r *http.Request) {
	RenderError(w, r, http.StatusNotFound, "Record not found")
}

// Unsupported answers the write endpoints of what retwis has no concept
// of (media, polls, favourites, boosts, edits): 422, as Mastodon answers
// a request it cannot carry out, so that apps show the message.
func Unsupported(w http.ResponseWriter, r *http.Request) {
	RenderError(w, r, http.StatusUnprocessableEntity, "This server does not support this: retwis has no media, polls, favourites, boosts or edits.")
}

// EmptyList answers an empty JSON array.
func EmptyList(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, http.StatusOK, []struct{}{}) }

// EmptyObject answers an empty JSON object.
func EmptyObject(w http.ResponseWriter, _ *http.Request) { WriteJSON(w, http.StatusOK, struct{}{}) }

// CORS lets web apps on other origins call the API, its streams
// included: it is authorized by bearer tokens, so any origin may read
// its answers (as Mastodon allows). The streams also take the pages'
// session cookie, but CORS without Access-Control-Allow-Credentials
// keeps a browser from sending it to another origin's script. Preflight
// requests are answered here.
func CORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "Link, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Idempotency-Key")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}
