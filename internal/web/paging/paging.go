// Package paging reads the cursor of a paged list from a page's query
// (?before=, ?after=, and the original Retwis's ?start=) and writes the
// links to a page's newer and older neighbours.
package paging

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
)

// MaxStart bounds ?start=N. An old link is translated by reading the N
// posts above its page, so deeper offsets are refused rather than read;
// deeper pages are reached by the Older links.
const MaxStart = 200

// Query is what the query of a paged timeline asks for.
type Query struct {
	Cursor retwis.Cursor
	Start  int  // the offset of an old ?start=N link, at least 0
	Old    bool // the query is such a link
}

// ParseQuery reads ?before=, ?after= or ?start=, at most one of them.
func ParseQuery(v url.Values) (Query, error) {
	var q Query
	var err error
	if q.Cursor, err = ParseCursor(v, "post"); err != nil {
		return q, err
	}
	if s := v.Get("start"); s != "" {
		if q.Cursor != (retwis.Cursor{}) {
			return q, retwis.Errorf(retwis.Invalid, "Use only one of ?before, ?after and ?start.")
		}
		n, err := strconv.Atoi(s) // out of range, n is the largest int of its sign
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return q, retwis.Errorf(retwis.Invalid, "The page offset ?start= must be a whole number.")
		}
		if n > MaxStart {
			return q, retwis.Errorf(retwis.Invalid, "Old page links reach at most %d posts deep. Please use the Older links to go further.", MaxStart)
		}
		q.Start, q.Old = max(n, 0), true
	}
	return q, nil
}

// ParseCursor reads ?before= or ?after= (not both), the number of a
// thing of the list paged: a "post", or a "user".
func ParseCursor(v url.Values, thing string) (retwis.Cursor, error) {
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

// Links returns the links to the newer and older neighbours of a
// page; base may have a query of its own.
func Links(base string, p retwis.Page) (newer, older string) {
	ids := make([]int64, len(p.Posts))
	for i, post := range p.Posts {
		ids[i] = post.ID
	}
	return CursorLinks(base, ids, p.Newer, p.Older)
}

// CursorLinks returns the links to the newer and older neighbours of a
// page of a list at base that shows the things ids (posts, users), whose
// flags say whether there are such neighbours.
func CursorLinks(base string, ids []int64, hasNewer, hasOlder bool) (newer, older string) {
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
