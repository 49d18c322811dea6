package page

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// ParseForm reads a POSTed form, refusing bodies over the size limit and
// fields that are not valid UTF-8, before anything else looks at them.
func ParseForm(w http.ResponseWriter, r *http.Request) (int, error) {
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return http.StatusRequestEntityTooLarge, retwis.Errorf(retwis.Invalid, "The form is too large.")
		}
		return http.StatusBadRequest, retwis.Errorf(retwis.Invalid, "The form could not be read.")
	}
	for _, vals := range r.PostForm {
		for _, v := range vals {
			if !utf8.ValidString(v) {
				return http.StatusBadRequest, retwis.Errorf(retwis.Invalid, "The form holds text that is not valid UTF-8.")
			}
		}
	}
	return 0, nil
}

// PostNumber reads the post id in value, a parameter called name of a
// request, spelled as retwis.ParseID reads it: 0 when value is empty.
func PostNumber(value, name string) (int64, error) {
	if value == "" {
		return 0, nil
	}
	n, ok := retwis.ParseID(value)
	if !ok {
		return 0, retwis.Errorf(retwis.Invalid, "%s must be a post number.", name)
	}
	return n, nil
}

// FormRefused settles the answer to a form that failed with err: status
// is what ParseForm said (0 if the form was read), else err's kind
// decides. A failure of the server (5xx) is answered here, and ok is
// false; otherwise the caller shows the form again with status, its
// Retry-After set if a rate limit refused it.
func (k *Kit) FormRefused(w http.ResponseWriter, r *http.Request, status int, err error) (int, bool) {
	if status == 0 {
		status = middleware.StatusOf(err)
	}
	if status >= 500 {
		k.MW.Fail(w, r, err)
		return status, false
	}
	middleware.SetRetryAfter(w, err)
	return status, true
}
