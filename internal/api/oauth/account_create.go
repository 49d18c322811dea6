package oauth

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
)

// fieldError is one refusal of a sign-up's parameter, as Mastodon
// details it: a code (ERR_BLANK, ERR_INVALID, ERR_TAKEN, ERR_ACCEPTED)
// and what is wrong, in words.
type fieldError struct {
	Error       string `json:"error"`
	Description string `json:"description"`
}

// validationError is Mastodon's answer to a refused sign-up (422): a
// message, and the refusals of each parameter.
type validationError struct {
	Error   string                  `json:"error"`
	Details map[string][]fieldError `json:"details"`
}

// refusals gathers a sign-up's refusals, parameter by parameter.
type refusals map[string][]fieldError

// add records err (if not nil) as the refusal of the parameter name
// whose value was val: ERR_BLANK if it was empty, else code.
func (f refusals) add(name, val, code string, err error) {
	if err == nil {
		return
	}
	if val == "" {
		code = "ERR_BLANK"
	}
	f[name] = append(f[name], fieldError{Error: code, Description: retwis.ErrorMessage(err)})
}

// write answers the refusals as Mastodon does: 422, "Validation failed:"
// with every description, and the details.
func (f refusals) write(w http.ResponseWriter) {
	var msgs []string
	for _, name := range []string{"username", "email", "password", "agreement"} {
		for _, e := range f[name] {
			msgs = append(msgs, e.Description)
		}
	}
	apiwire.WriteJSON(w, http.StatusUnprocessableEntity, validationError{
		Error: "Validation failed: " + strings.Join(msgs, " "), Details: f})
}

// checkSignup returns the refusals of a sign-up's parameters, by the
// rules the store enforces (usernames, passwords) and the form's own:
// an e-mail address, and the agreement to the rules.
func checkSignup(v url.Values) refusals {
	f := refusals{}
	f.add("username", v.Get("username"), "ERR_INVALID", retwis.ValidateUsername(v.Get("username")))
	f.add("email", v.Get("email"), "ERR_INVALID", retwis.ValidateEmail(v.Get("email")))
	f.add("password", v.Get("password"), "ERR_INVALID", retwis.ValidatePassword(v.Get("password")))
	if !apiwire.Flag(v, "agreement") {
		f.add("agreement", "true", "ERR_ACCEPTED", retwis.Errorf(retwis.Invalid, "Please accept the rules of the server."))
	}
	return f
}

// need wraps a route that needs a token issued to an app, the app's own
// (client_credentials) or a user's, granting scope: without one it
// answers 401, without the scope 403.
func (s *Server) need(scope string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r, ok := s.Authorize(w, r, scope)
		if !ok {
			return
		}
		if t, ok := apiwire.TokenFrom(r.Context()); !ok || t.ClientID == "" {
			apiwire.RenderError(w, r, http.StatusUnauthorized, "The access token is invalid")
			return
		}
		next(w, r)
	}
}

// createAccount answers POST /api/v1/accounts (username, email,
// password, agreement; locale, reason, date_of_birth and time_zone are
// accepted and ignored): an app, with a token of its own or of a user
// that grants write:accounts, signs a user up, by the store's sign-up
// (the page's: the same rules, names taken whatever their case) and
// within the page's limit of sign-ups per client address; the answer is
// a token of the new user for the app, with the app token's scopes, so
// that the app is logged in at once. The e-mail address is checked, not
// kept.
func (s *Server) createAccount(w http.ResponseWriter, r *http.Request) {
	t, _ := apiwire.TokenFrom(r.Context())
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	if f := checkSignup(v); len(f) > 0 {
		f.write(w)
		return
	}
	if !s.TakeSignup(w, r) {
		return
	}
	u, err := s.Store.SignUp(r.Context(), v.Get("username"), v.Get("password"))
	switch {
	case retwis.ErrorKind(err) == retwis.Conflict: // taken, or reserved after a deletion
		f := refusals{}
		f.add("username", v.Get("username"), "ERR_TAKEN", err)
		f.write(w)
		return
	case err != nil:
		s.Fail(w, r, err)
		return
	}
	s.issue(w, r, u.ID, retwis.App{ClientID: t.ClientID, Name: t.AppName}, t.Scopes)
}
