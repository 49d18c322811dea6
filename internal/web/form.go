package web

import (
	"errors"
	"net/http"
	"strconv"
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

// postNumber reads the post id in value, a parameter called name of a
// request: 0 when value is empty.
func postNumber(value, name string) (int64, error) {
	if value == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n <= 0 {
		return 0, retwis.Errorf(retwis.Invalid, "%s must be a post number.", name)
	}
	return n, nil
}
