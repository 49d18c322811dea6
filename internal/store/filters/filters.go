// Package filters keeps a user's filters, Mastodon's filters v2: each a
// title, the contexts it applies in (home, notifications, public,
// thread, account), an action (warn: the post is shown collapsed behind
// the filter's title; hide: it is left out), an optional expiry, and
// what it matches: keywords (whole words or not) in a post's text and
// content warning, and posts by id.
//
// A user's filters are one hash in their slot (schema.Filters): the
// list as JSON and its version, written whole by a compare-and-set on
// the version (write.go). Reading them for a page (Set) costs no round
// trip when warm: the hash is read through the client-side cache and
// the compiled matcher kept in a kernel.Memo, which Redis's
// invalidation of the hash drops. Apply (apply.go) is the one place
// where the filters meet a list of posts, which the client API and the
// pages both call.
package filters

import (
	"context"
	"encoding/json"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// The contexts a filter applies in, as Mastodon names them: the home
// timeline (and lists), the notifications, the public timelines (global
// and tags), a post's thread, a profile.
const (
	Home          = "home"
	Notifications = "notifications"
	Public        = "public"
	Thread        = "thread"
	Account       = "account"
)

// Contexts are every context a filter may apply in.
var Contexts = []string{Home, Notifications, Public, Thread, Account}

// The actions of a filter: a post it matches is shown collapsed behind
// its title (Warn), or left out (Hide).
const (
	Warn = "warn"
	Hide = "hide"
)

// The bounds of a user's filters, so that reading and matching them
// stays cheap: past them, a write is refused (retwis.Invalid, which the
// API answers 422).
const (
	MaxFilters    = 20  // filters per user
	MaxKeywords   = 20  // keywords per filter
	MaxStatuses   = 20  // posts per filter
	MaxTitleLen   = 200 // characters of a title
	MaxKeywordLen = 100 // characters of a keyword
)

// Filter is one of a user's filters.
type Filter struct {
	ID        int64       `json:"id"`
	Title     string      `json:"title"`
	Context   []string    `json:"context"`
	Action    string      `json:"action"`
	ExpiresAt time.Time   `json:"expires_at,omitzero"` // zero: never
	Keywords  []Keyword   `json:"keywords,omitempty"`
	Statuses  []StatusRef `json:"statuses,omitempty"`
}

// Keyword is a word or phrase a filter matches; WholeWord: only where it
// stands between word boundaries (as Mastodon's whole_word).
type Keyword struct {
	ID        int64  `json:"id"`
	Keyword   string `json:"keyword"`
	WholeWord bool   `json:"whole_word"`
}

// StatusRef is a post a filter matches, by id.
type StatusRef struct {
	ID     int64 `json:"id"`
	PostID int64 `json:"post"`
}

// Expired reports whether f has stopped applying at now.
func (f Filter) Expired(now time.Time) bool { return !f.ExpiresAt.IsZero() && !now.Before(f.ExpiresAt) }

// AppliesIn reports whether f applies in context.
func (f Filter) AppliesIn(context string) bool {
	for _, c := range f.Context {
		if c == context {
			return true
		}
	}
	return false
}

// doc is what a Filters hash holds: the filters, and the next id of a
// filter, keyword or post of them (ids are the user's own).
type doc struct {
	Next    int64    `json:"next"`
	Filters []Filter `json:"filters"`
}

// Store is the filters of the users of an online store.
type Store struct {
	st   *store.Store
	memo *kernel.Memo[*Set]
}

// memoSize is how many users' compiled filters a Store keeps at most.
const memoSize = 50_000

// New returns the filters of st's users. Make one per server: it keeps
// the compiled filters of the users read lately.
func New(st *store.Store) *Store {
	return &Store{st: st, memo: kernel.NewMemo[*Set](st.DB, schema.Filters, schema.FiltersOf, memoSize)}
}

// List returns uid's filters that have not expired, oldest first.
func (s *Store) List(ctx context.Context, uid int64) ([]Filter, error) {
	set, err := s.Set(ctx, uid)
	if err != nil {
		return nil, err
	}
	return set.live(time.Now()), nil
}

// Get returns uid's filter id, unless it does not exist or has expired
// (retwis.NotFound).
func (s *Store) Get(ctx context.Context, uid, id int64) (Filter, error) {
	all, err := s.List(ctx, uid)
	if err != nil {
		return Filter{}, err
	}
	for _, f := range all {
		if f.ID == id {
			return f, nil
		}
	}
	return Filter{}, notFound("filter")
}

// KeywordOf returns uid's keyword id with its filter.
func (s *Store) KeywordOf(ctx context.Context, uid, id int64) (Filter, Keyword, error) {
	all, err := s.List(ctx, uid)
	if err != nil {
		return Filter{}, Keyword{}, err
	}
	for _, f := range all {
		for _, k := range f.Keywords {
			if k.ID == id {
				return f, k, nil
			}
		}
	}
	return Filter{}, Keyword{}, notFound("keyword")
}

// StatusOf returns uid's filtered post id (the StatusRef's) with its
// filter.
func (s *Store) StatusOf(ctx context.Context, uid, id int64) (Filter, StatusRef, error) {
	all, err := s.List(ctx, uid)
	if err != nil {
		return Filter{}, StatusRef{}, err
	}
	for _, f := range all {
		for _, r := range f.Statuses {
			if r.ID == id {
				return f, r, nil
			}
		}
	}
	return Filter{}, StatusRef{}, notFound("filtered status")
}

// Set returns uid's filters compiled for matching: from the memo, else
// read through the client-side cache (no round trip when warm) and
// compiled once. A user without filters has an empty Set.
func (s *Store) Set(ctx context.Context, uid int64) (*Set, error) {
	if set, _, ok := s.memo.Get(uid); ok {
		return set, nil
	}
	_, token, _ := s.memo.Get(uid)
	cmd := s.st.C.B().Hget().Key(schema.Filters(uid)).Field(schema.FieldFiltersDoc).Cache()
	raw, err := s.st.Cached(ctx, cmd, s.st.Opts.CacheTTL).ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return nil, s.st.Wrap("filters", err)
	}
	d, err := parse(raw)
	if err != nil {
		return nil, s.st.Wrap("filters", err)
	}
	set := compile(d.Filters)
	s.memo.Put(uid, set, token)
	return set, nil
}

// parse reads a Filters hash's doc ("": none).
func parse(raw string) (doc, error) {
	var d doc
	if raw == "" {
		return d, nil
	}
	err := json.Unmarshal([]byte(raw), &d)
	return d, err
}

// notFound is the error of a filter, keyword or post not among a user's.
func notFound(what string) error {
	return retwis.Errorf(retwis.NotFound, "No such %s.", what)
}
