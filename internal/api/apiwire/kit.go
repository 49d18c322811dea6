// Package apiwire is the client API's way with HTTP, which every part
// of the API shares: JSON answers and Mastodon's error bodies, the
// status of an error (respond.go), parameters read by one rule from the
// query string or the body (params.go), lists paged by ids with Link
// headers (paging.go), bearer tokens, scopes and the rate limit
// (auth.go), CORS, and the Kit that holds what they need: the store,
// the entities' builder and the API's middleware stack. internal/api
// and its feature packages answer with it, and internal/streaming
// answers its errors and counts its streams with it.
package apiwire

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/filters"
	pushstore "github.com/retwis/retwis/internal/store/push"
)

// requestTimeout bounds a call of the API.
const requestTimeout = 10 * time.Second

// Options configure a Kit, and so the client API.
type Options struct {
	Store *store.Store
	// Media takes pictures (uploads, avatars and headers).
	Media *media.Service
	Log   *slog.Logger
	// Metrics, if not nil, receives the request metrics (shared with the
	// HTML interface's, by route).
	Metrics prometheus.Registerer
	// Writes is how many posts, follows and deletions run at once; see
	// web.Options.Writes. Zero means no limit.
	Writes int
	// Rate limits the calls of each token, and of each client address
	// for calls without one (zero: no limit); Proxies are the proxies
	// whose X-Forwarded-For is believed for the address.
	Rate    retwis.Rate
	Proxies []netip.Prefix
	// Signups limits the sign-ups from an app (POST /api/v1/accounts)
	// per client address, on the count the sign-up page keeps (zero: no
	// limit).
	Signups retwis.Rate
	// Site is what the instance says of itself (see Site).
	Site Site
	// Push keeps the Web Push subscriptions and the VAPID key pair (a
	// store on Store when nil).
	Push *pushstore.Store
}

// Site is what the instance entities say of the instance besides what
// the store holds: set by the operator (retwis serve's flags).
type Site struct {
	Contact string // the e-mail address of whoever runs it; may be ""
	About   string // the extended description, plain text; "": the short one
	// PrivacyPolicy is the privacy policy, plain text; "": what retwis
	// itself keeps and shares.
	PrivacyPolicy string
}

// Kit is what the handlers of the client API share: the entities'
// builder, whose Store is the API's store, and the middleware stack
// (MW: its Throttle for the routes that write), with the rate limit of
// its calls. The API's parts embed it, so that its methods are theirs.
type Kit struct {
	entity.Builder
	MW      *middleware.Stack
	Site    Site
	Signups retwis.Rate // see Options.Signups
	Push    *pushstore.Store
	// Media takes pictures (Options.Media).
	Media *media.Service
	rate  retwis.Rate
}

// New returns a Kit.
func New(opts Options) *Kit {
	if opts.Push == nil {
		opts.Push = pushstore.New(opts.Store, pushstore.Options{})
	}
	return &Kit{
		Builder: entity.Builder{Store: opts.Store, Filters: filters.New(opts.Store)},
		rate:    opts.Rate,
		Site:    opts.Site,
		Signups: opts.Signups,
		Push:    opts.Push,
		Media:   opts.Media,
		MW: middleware.New(middleware.Options{
			Log: opts.Log, RenderError: RenderError, MaxBodyBytes: MaxBodyBytes, Timeout: requestTimeout,
			Metrics: opts.Metrics, Writes: opts.Writes, Proxies: opts.Proxies,
		}),
	}
}

// VapidKey returns the instance's VAPID public key, which apps give the
// push service they subscribe at; "" if it cannot be read now.
func (k *Kit) VapidKey(ctx context.Context) string {
	keys, err := k.Push.Keys(ctx)
	if err != nil {
		k.Store.Log.Warn("the VAPID key could not be read", "err", err)
	}
	return keys.Public
}

// Handler returns mux, the API's routes, behind CORS and the API's
// middleware stack, its paths taken with a trailing slash too
// (TrimSlash).
func (k *Kit) Handler(mux *http.ServeMux) http.Handler { return k.MW.Wrap(CORS(TrimSlash(mux))) }

// Fail answers a request whose operation failed with err.
func (k *Kit) Fail(w http.ResponseWriter, r *http.Request, err error) {
	status := StatusOf(err)
	middleware.SetRetryAfter(w, err)
	k.MW.LogFailure(r, status, err)
	RenderError(w, r, status, retwis.ErrorMessage(err))
}

// PageOf reads a request's paging parameters (limit 20, at most 40) and
// answers 4xx if they are wrong; ok is false once answered.
func (k *Kit) PageOf(w http.ResponseWriter, r *http.Request) (Page, bool) {
	return k.paging(w, r, DefaultLimit, MaxLimit)
}

// AccountPaging reads the paging parameters of a list of accounts
// (limit 40, at most 80); ok is false once a bad request was answered.
func (k *Kit) AccountPaging(w http.ResponseWriter, r *http.Request) (Page, bool) {
	return k.paging(w, r, MaxLimit, MaxAccounts)
}

// paging reads a request's paging parameters, the limit def when absent
// and at most max; ok is false once a bad request was answered.
func (k *Kit) paging(w http.ResponseWriter, r *http.Request, def, max int) (Page, bool) {
	v, err := Params(r)
	if err != nil {
		BadRequest(w, r, err)
		return Page{}, false
	}
	p, err := ReadPage(v, def, max)
	if err != nil {
		k.Fail(w, r, err)
		return p, false
	}
	return p, true
}

// WriteStatuses answers a page of posts, newest first, but those not
// newer than since (since_id, 0 for all), with its Link header.
func (k *Kit) WriteStatuses(w http.ResponseWriter, r *http.Request, page retwis.Page, since int64) {
	k.WriteFiltered(w, r, "", page, since)
}

// WriteFiltered is WriteStatuses of a list read in context (filters.Home,
// filters.Public…): the viewer's filters of that context applied
// (entity.Builder.Filtered). The Link header pages by the posts read,
// hidden or not, so that a page all hidden does not end the list.
func (k *Kit) WriteFiltered(w http.ResponseWriter, r *http.Request, context string, page retwis.Page, since int64) {
	k.WriteSome(w, r, context, page, since, nil)
}

// WriteSome is WriteFiltered of the posts that keep keeps (nil: all),
// such as those with pictures (only_media=true): the Link header pages
// by the posts read, kept or not, so that apps page on past a page with
// none kept.
func (k *Kit) WriteSome(w http.ResponseWriter, r *http.Request, context string, page retwis.Page, since int64, keep func(retwis.Post) bool) {
	posts := NewerThan(page.Posts, since, func(p retwis.Post) int64 { return p.ID })
	shown := posts
	if keep != nil {
		shown = slices.DeleteFunc(slices.Clone(posts), func(p retwis.Post) bool { return !keep(p) })
	}
	out, err := k.Filtered(r.Context(), entity.SiteOf(r), context, shown)
	if err != nil {
		k.Fail(w, r, err)
		return
	}
	if len(posts) > 0 {
		Link(w, r, posts[0].ID, posts[len(posts)-1].ID, page.Older)
	}
	WriteJSON(w, http.StatusOK, out)
}

// WriteAccounts answers with the accounts of uids, a page of a list
// paged by account id, with its Link header (older: more follow).
func (k *Kit) WriteAccounts(w http.ResponseWriter, r *http.Request, uids []int64, older bool) {
	out, err := k.Accounts(r.Context(), entity.SiteOf(r), uids)
	if err != nil {
		k.Fail(w, r, err)
		return
	}
	if len(uids) > 0 {
		Link(w, r, uids[0], uids[len(uids)-1], older)
	}
	WriteJSON(w, http.StatusOK, out)
}
