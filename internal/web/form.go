package web

import (
	"errors"
	"math"
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

// maxStart bounds ?start= so that nobody can make Redis walk far into a
// list; deeper pages use cursors.
const maxStart = 1000

// pageCursor reads the cursor of a paged timeline: ?before=<post id>,
// ?after=<post id>, or, for old links, ?start=<offset>.
func pageCursor(r *http.Request) (retwis.Cursor, error) {
	q := r.URL.Query()
	var c retwis.Cursor
	set := 0
	for _, f := range []struct {
		name string
		dst  *int64
		max  int64
	}{{"before", &c.Before, math.MaxInt64}, {"after", &c.After, math.MaxInt64}} {
		if v := q.Get(f.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return c, retwis.Errorf(retwis.Invalid, "?%s must be a post number.", f.name)
			}
			*f.dst = n
			set++
		}
	}
	if v := q.Get("start"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxStart {
			return c, retwis.Errorf(retwis.Invalid, "The page offset must be a whole number from 0 to %d.", maxStart)
		}
		c.Start = n
		set++
	}
	if set > 1 {
		return c, retwis.Errorf(retwis.Invalid, "Use only one of ?before, ?after and ?start.")
	}
	return c, nil
}

// pageLinks returns the links to the newer and older neighbours of a page.
func pageLinks(base string, p retwis.Page) (newer, older string) {
	if len(p.Posts) == 0 {
		if p.Newer {
			newer = base // an empty page past the end: back to the start
		}
		return newer, ""
	}
	if p.Newer {
		newer = base + "?after=" + strconv.FormatInt(p.Posts[0].ID, 10)
	}
	if p.Older {
		older = base + "?before=" + strconv.FormatInt(p.Posts[len(p.Posts)-1].ID, 10)
	}
	return newer, older
}
