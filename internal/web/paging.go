package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
)

// maxStart bounds ?start=N. An old link is translated by reading the N
// posts above its page, so deeper offsets are refused rather than read;
// deeper pages are reached by the Older links.
const maxStart = 200

// pageReader reads the page of n posts at cursor c of one timeline.
type pageReader func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error)

// pageQuery is what the query of a paged timeline asks for.
type pageQuery struct {
	cursor retwis.Cursor
	start  int  // the offset of an old ?start=N link, at least 0
	old    bool // the query is such a link
}

// pageCursor returns the cursor of the page a request asks for with
// ?before=<post id> or ?after=<post id>. It answers the request itself,
// and returns false, when the query is invalid or an old ?start=N link
// of the original Retwis, which it redirects to the cursor page holding
// the same posts; read reads that timeline.
func (s *Server) pageCursor(w http.ResponseWriter, r *http.Request, read pageReader) (retwis.Cursor, bool) {
	q, err := parsePageQuery(r.URL.Query())
	switch {
	case err != nil:
		s.mw.Fail(w, r, err)
	case q.old:
		s.redirectStart(w, r, q.start, read)
	default:
		return q.cursor, true
	}
	return retwis.Cursor{}, false
}

// parsePageQuery reads ?before=, ?after= or ?start=, at most one of them.
func parsePageQuery(v url.Values) (pageQuery, error) {
	var q pageQuery
	var err error
	if q.cursor, err = parseCursor(v, "post"); err != nil {
		return q, err
	}
	if s := v.Get("start"); s != "" {
		if q.cursor != (retwis.Cursor{}) {
			return q, retwis.Errorf(retwis.Invalid, "Use only one of ?before, ?after and ?start.")
		}
		n, err := strconv.Atoi(s) // out of range, n is the largest int of its sign
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return q, retwis.Errorf(retwis.Invalid, "The page offset ?start= must be a whole number.")
		}
		if n > maxStart {
			return q, retwis.Errorf(retwis.Invalid, "Old page links reach at most %d posts deep. Please use the Older links to go further.", maxStart)
		}
		q.start, q.old = max(n, 0), true
	}
	return q, nil
}

// parseCursor reads ?before= or ?after= (not both), the number of a
// thing of the list paged: a "post", or a "user".
func parseCursor(v url.Values, thing string) (retwis.Cursor, error) {
	var c retwis.Cursor
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"before", &c.Before}, {"after", &c.After}} {
		if s := v.Get(f.name); s != "" {
			n, ok := retwis.ParseID(s)
			if !ok {
				return retwis.Cursor{}, retwis.Errorf(retwis.Invalid, "?%s must be a %s number.", f.name, thing)
			}
			*f.dst = n
		}
	}
	if c.Before > 0 && c.After > 0 {
		return retwis.Cursor{}, retwis.Errorf(retwis.Invalid, "Use only one of ?before and ?after.")
	}
	return c, nil
}

// redirectStart answers an old ?start=n link with a permanent redirect to
// the same path at ?before=<id of the n-th post>, whose page holds the
// posts the link showed; the n posts are read through the cursor API.
// With n = 0, or fewer than n posts, it redirects to the first page.
func (s *Server) redirectStart(w http.ResponseWriter, r *http.Request, n int, read pageReader) {
	target := r.URL.EscapedPath()
	if n > 0 {
		p, err := read(r.Context(), retwis.Cursor{}, n)
		if err != nil {
			s.mw.Fail(w, r, err)
			return
		}
		if len(p.Posts) == n {
			target += "?before=" + strconv.FormatInt(p.Posts[n-1].ID, 10)
		}
	}
	// Where an offset lands depends on when it is asked (and, at home, by
	// whom): the link moved for good, but this answer must not be kept.
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusMovedPermanently)
}

// pageLinks returns the links to the newer and older neighbours of a
// page; base may have a query of its own.
func pageLinks(base string, p retwis.Page) (newer, older string) {
	ids := make([]int64, len(p.Posts))
	for i, post := range p.Posts {
		ids[i] = post.ID
	}
	return cursorLinks(base, ids, p.Newer, p.Older)
}

// cursorLinks returns the links to the newer and older neighbours of a
// page of a list at base that shows the things ids (posts, users), whose
// flags say whether there are such neighbours.
func cursorLinks(base string, ids []int64, hasNewer, hasOlder bool) (newer, older string) {
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	if len(ids) == 0 {
		if hasNewer {
			newer = base // an empty page past the end: back to the start
		}
		return newer, ""
	}
	if hasNewer {
		newer = base + sep + "after=" + strconv.FormatInt(ids[0], 10)
	}
	if hasOlder {
		older = base + sep + "before=" + strconv.FormatInt(ids[len(ids)-1], 10)
	}
	return newer, older
}
