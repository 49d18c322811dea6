package page

import (
	"context"
	"slices"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/filters"
)

// pageContexts are the filters' contexts of the pages that list posts.
var pageContexts = map[string]string{"home": filters.Home, "timeline": filters.Public, "tag": filters.Public,
	"profile": filters.Account, "post": filters.Thread, "notifications": filters.Notifications}

// applyFilters applies the viewer's filters of page name's context to
// the posts it lists, as the client API does (filters.Set): hidden
// posts, and their notifications, left out; warned ones veiled. Nothing
// read for a reader who never made a filter (retwis.User.Filtered) or a
// visitor; no round trip when warm.
func (k *Kit) applyFilters(ctx context.Context, name string, v *View) {
	fc, ok := pageContexts[name]
	if v.Viewer == nil || !v.Viewer.Filtered || !ok {
		return
	}
	set, err := k.Filters.Set(ctx, v.Viewer.ID)
	if err != nil {
		k.Log.Warn("filters", "user", v.Viewer.ID, "err", err) // the page goes on unfiltered
		return
	}
	uid, now := v.Viewer.ID, time.Now()
	for _, page := range []*retwis.Page{&v.Page, &v.Profile.Page, &v.Thread.Replies} {
		set.Veil(uid, fc, page, now)
	}
	v.Thread.Ancestors = set.Apply(uid, fc, v.Thread.Ancestors, now).Posts
	v.Notifications = slices.DeleteFunc(v.Notifications, func(n retwis.Notification) bool {
		return n.Status != nil && set.Hides(uid, fc, *n.Status, now)
	})
}
