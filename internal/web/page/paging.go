package page

import (
	"context"
	"net/http"
	"strconv"

	"github.com/retwis/retwis/internal/web/paging"

	"github.com/retwis/retwis"
)

// PageReader reads the page of n posts at cursor c of one timeline.
type PageReader func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error)

// PageCursor returns the cursor of the page a request asks for with
// ?before=<post id> or ?after=<post id>. It answers the request itself,
// and returns false, when the query is invalid or an old ?start=N link
// of the original Retwis, which it redirects to the cursor page holding
// the same posts; read reads that timeline.
func (k *Kit) PageCursor(w http.ResponseWriter, r *http.Request, read PageReader) (retwis.Cursor, bool) {
	q, err := paging.ParseQuery(r.URL.Query())
	switch {
	case err != nil:
		k.MW.Fail(w, r, err)
	case q.Old:
		k.redirectStart(w, r, q.Start, read)
	default:
		return q.Cursor, true
	}
	return retwis.Cursor{}, false
}

// redirectStart answers an old ?start=n link with a permanent redirect to
// the same path at ?before=<id of the n-th post>, whose page holds the
// posts the link showed; the n posts are read through the cursor API.
// With n = 0, or fewer than n posts, it redirects to the first page.
func (k *Kit) redirectStart(w http.ResponseWriter, r *http.Request, n int, read PageReader) {
	target := r.URL.EscapedPath()
	if n > 0 {
		p, err := read(r.Context(), retwis.Cursor{}, n)
		if err != nil {
			k.MW.Fail(w, r, err)
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
