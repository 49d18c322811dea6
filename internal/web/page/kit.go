// Package page is the pages' kit: what every handler of internal/web
// shares, and nothing of any one page. Kit holds the store, the
// middleware stack, the log and the parsed templates with their caches,
// and renders a View (the data of every page, views.go) into a page.
// The templates themselves (templates/, embedded), the hot pages
// composed from kept parts (hot.go, kept.go), the template functions
// (funcs.go) and the helpers of the auth and device cookies, the forms,
// paging and cross-origin refusals are here too.
package page

import (
	"log/slog"
	"sync"
	"time"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/filters"
)

const (
	maxBodyBytes   = 16 << 10 // forms are small; anything bigger is refused with 413
	requestTimeout = 10 * time.Second
)

// formBytes caps request bodies: maxBodyBytes, or more on an instance
// whose posts may be so long (--max-post-chars) that a post of
// characters of four bytes, each sent as 12 ("%F0%9F%99%82"), would not
// fit in it.
func formBytes(maxPostChars int) int64 {
	return max(maxBodyBytes, 12*int64(maxPostChars)+4<<10)
}

// Kit is what every page handler shares: the store, the viewer's
// filters, the log, the middleware stack (built here, with the error
// page, the session cookie and the pages' limits), and the pages.
type Kit struct {
	Store   *store.Store      // the online store the handlers call
	Filters *filters.Store    // the viewers' filters, applied by Render
	Log     *slog.Logger      // the log of what a request cannot show
	MW      *middleware.Stack // the middleware every page runs behind
	secure  bool              // the auth cookie is always Secure
	// formBytes caps a form's body (LimitBodies).
	formBytes int64
	pages     *pageSet
	// buffers hold pages being rendered: a page is tens of kilobytes,
	// which a fresh buffer would reach by growing (and copying) often.
	buffers sync.Pool
}

// New returns the Kit of the pages of st, logging to log (nil: the
// default logger), whose auth cookie is always Secure if secure; mw are
// the middleware's options but for those the pages set themselves (the
// log, the error page, the body cap, the deadline, the authenticator and
// the session credential). It fails only if the embedded templates are
// broken.
func New(st *store.Store, log *slog.Logger, secure bool, mw middleware.Options) (*Kit, error) {
	maxPostChars := st.Opts.MaxPostChars
	pages, err := parseTemplates(maxPostChars)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	k := &Kit{Store: st, Filters: filters.New(st), Log: log, secure: secure, pages: pages, formBytes: formBytes(maxPostChars)}
	mw.Log, mw.RenderError, mw.Timeout = log, k.RenderError, requestTimeout // the bodies capped by LimitBodies
	mw.Auth, mw.Credential, mw.Refused = st, SessionCredential, k.ClearAuthCookie
	k.MW = middleware.New(mw)
	return k, nil
}
