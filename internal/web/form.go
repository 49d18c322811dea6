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

// maxStart bounds ?start= so that nobody can ask Redis to walk far into a
// list; older posts are reached page by page.
const maxStart = 100_000

// pageStart reads the ?start=N offset of a paged timeline.
func pageStart(r *http.Request) (int, error) {
	v := r.URL.Query().Get("start")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxStart {
		return 0, retwis.Errorf(retwis.Invalid, "The page offset must be a whole number from 0 to %d.", maxStart)
	}
	return n, nil
}

// pageLinks returns the links to the newer and older neighbours of a page.
func pageLinks(base string, p retwis.Page) (newer, older string) {
	if p.Start > 0 {
		newer = base
		if s := p.Start - PageSize; s > 0 {
			newer += "?start=" + strconv.Itoa(s)
		}
	}
	if p.More {
		older = base + "?start=" + strconv.Itoa(p.Start+PageSize)
	}
	return newer, older
}
