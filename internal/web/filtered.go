package web

import (
	"context"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/filters"
)

// pageContexts are the filters' contexts of the pages that list posts.
var pageContexts = map[string]string{"home": filters.Home, "timeline": filters.Public, "tag": filters.Public,
	"profile": filters.Account, "post": filters.Thread, "notifications": filters.Notifications}

// applyFilters applies the viewer's filters of page name's context to
// the posts it lists (the store's filters.Set.Apply, as the client API
// does): a post a hide filter matches is left out (a notification of
// it too), one a warn filter matches is veiled (retwis.Page.Veiled) in
// the pages' lists. Nothing read for a reader who never made a filter
// (retwis.User.Filtered) or a visitor; no round trip when warm.
func (s *Server) applyFilters(ctx context.Context, name string, v *view) {
	fc, ok := pageContexts[name]
	if v.Viewer == nil || !v.Viewer.Filtered || !ok {
		return
	}
	set, err := s.filters.Set(ctx, v.Viewer.ID)
	if err != nil {
		s.log.Warn("filters", "user", v.Viewer.ID, "err", err) // the page goes on unfiltered
		return
	}
	if set.Empty() {
		return
	}
	uid, now := v.Viewer.ID, time.Now()
	for _, page := range []*retwis.Page{&v.Page, &v.Profile.Page, &v.Thread.Replies} {
		veil(page, set.Apply(uid, fc, page.Posts, now))
	}
	v.Thread.Ancestors = set.Apply(uid, fc, v.Thread.Ancestors, now).Posts
	notes := v.Notifications[:0:0]
	for _, n := range v.Notifications {
		if n.Status == nil || len(set.Apply(uid, fc, []retwis.Post{*n.Status}, now).Posts) == 1 {
			notes = append(notes, n)
		}
	}
	v.Notifications = notes
}

// veil keeps in page the posts a filter left (a), veiling those a warn
// filter matched behind its title.
func veil(page *retwis.Page, a filters.Applied) {
	page.Posts = a.Posts
	for pid, matches := range a.Matches {
		if page.Veiled == nil {
			page.Veiled = map[int64]string{}
		}
		page.Veiled[pid] = matches[0].Filter.Title
	}
}
