package web

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/retwis/retwis"
)

// parseForm reads a POSTed form, refusing bodies over the size limit and
// fields that are not valid UTF-8, before anything else looks at them.
func parseForm(w http.ResponseWriter, r *http.Request) (int, error) {
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
