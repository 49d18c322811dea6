package apiwire

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
)

// Page sizes of the lists: Mastodon's defaults and maxima.
const (
	DefaultLimit = 20
	MaxLimit     = 40
	MaxAccounts  = 80 // follower lists
)

// Page is the paging parameters of a list: max_id (older than) and
// min_id (just newer than) as its Cursor's Before and After, since_id
// (newer than, newest first) and limit.
type Page struct {
	Cursor retwis.Cursor
	Since  int64
	Limit  int
}

// ReadPage reads a list's paging parameters; max bounds limit. A
// parameter that is not an id or a number is an error fit to show.
func ReadPage(v url.Values, def, max int) (Page, error) {
	var p Page
	var err error
	if p.Cursor.Before, err = OptionalID(v, "max_id"); err != nil {
		return p, err
	}
	if p.Cursor.After, err = OptionalID(v, "min_id"); err != nil {
		return p, err
	}
	if p.Since, err = OptionalID(v, "since_id"); err != nil {
		return p, err
	}
	p.Limit, err = ReadLimit(v, def, max)
	return p, err
}

// ReadLimit reads the limit parameter: def when absent, at most max; a
// limit that is not a positive number is an error of kind Invalid.
func ReadLimit(v url.Values, def, max int) (int, error) {
	s := v.Get("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, retwis.Errorf(retwis.Invalid, "limit must be a positive number.")
	}
	return min(n, max), nil
}

// OptionalID reads an id parameter, spelled as retwis.ParseID reads it;
// absent, empty or "0" (which some apps send for none) is 0.
func OptionalID(v url.Values, name string) (int64, error) {
	s := v.Get(name)
	if s == "" || s == "0" {
		return 0, nil
	}
	n, ok := retwis.ParseID(s)
	if !ok {
		return 0, retwis.Errorf(retwis.Invalid, "%s must be an id.", name)
	}
	return n, nil
}

// NewerThan keeps the ids above since (all if since is 0), for since_id.
func NewerThan[T any](items []T, since int64, idOf func(T) int64) []T {
	if since == 0 {
		return items
	}
	out := items[:0]
	for _, it := range items {
		if idOf(it) > since {
			out = append(out, it)
		}
	}
	return out
}

// Link sets the Link header of a page whose items run from newest to
// oldest, as Mastodon sends it: "next" for the older page (max_id of the
// oldest), "prev" for the newer one (min_id of the newest), each with
// the request's other parameters kept. An empty page has none.
func Link(w http.ResponseWriter, r *http.Request, newest, oldest int64, older bool) {
	if newest == 0 {
		return
	}
	var links []string
	if older {
		links = append(links, `<`+pageURL(r, "max_id", oldest)+`>; rel="next"`)
	}
	links = append(links, `<`+pageURL(r, "min_id", newest)+`>; rel="prev"`)
	w.Header().Set("Link", strings.Join(links, ", "))
}

// pageURL returns the request's URL with its paging parameters replaced
// by name=at.
func pageURL(r *http.Request, name string, at int64) string {
	q := r.URL.Query()
	for _, k := range []string{"max_id", "min_id", "since_id", "access_token"} {
		q.Del(k)
	}
	q.Set(name, entity.ID(at))
	return middleware.Origin(r) + r.URL.Path + "?" + q.Encode()
}
