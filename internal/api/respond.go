package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// apiError is Mastodon's error entity.
type apiError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// writeJSON answers v as JSON with status. HTML in strings (a status's
// content) is left as it is, as Mastodon sends it, not \u-escaped.
func writeJSON(w http.ResponseWriter, status int, v any) {
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
	writeJSON(w, status, apiError{Error: msg})
}

// renderError is RenderError, by the name the handlers call it.
var renderError = RenderError

// statusOf is the status of an error in Mastodon's dialect: the shared
// map (middleware.StatusOf), but for input that breaks a rule, which
// Mastodon answers with 422 Unprocessable Entity.
func statusOf(err error) int {
	if retwis.ErrorKind(err) == retwis.Invalid {
		return http.StatusUnprocessableEntity
	}
	return middleware.StatusOf(err)
}

// fail answers a request whose operation failed with err.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := statusOf(err)
	middleware.SetRetryAfter(w, err)
	s.mw.LogFailure(r, status, err)
	renderError(w, r, status, retwis.ErrorMessage(err))
}

// badRequest answers a request whose parameters cannot be read at all
// (err from params).
func badRequest(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusBadRequest
	if pe, ok := errors.AsType[*paramError](err); ok {
		status = pe.status
	}
	renderError(w, r, status, err.Error())
}

// NotFound answers a path the API does not have, or a record it does
// not find.
func NotFound(w http.ResponseWriter, r *http.Request) {
	renderError(w, r, http.StatusNotFound, "Record not found")
}

// notFound is NotFound, by the name the handlers call it.
var notFound = NotFound

// unsupported answers the write endpoints of what retwis has no concept
// of (media, polls, favourites, boosts, edits): 422, as Mastodon answers
// a request it cannot carry out, so that apps show the message.
func unsupported(w http.ResponseWriter, r *http.Request) {
	renderError(w, r, http.StatusUnprocessableEntity, "This server does not support this: retwis has no media, polls, favourites, boosts or edits.")
}

// emptyList answers an empty JSON array.
func emptyList(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, []struct{}{}) }

// emptyObject answers an empty JSON object.
func emptyObject(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, struct{}{}) }

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
