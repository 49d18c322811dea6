package parts

import (
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
)

// A post's action bar is what changes per reader and over time (its
// counts of favourites and boosts, the reader's marks), so it is written fresh for
// each post of each page, outside the kept fragment, from constant
// strings: small forms that POST to the post's actions (no script
// needed), whose answer sends the browser back to the page. A visitor
// logged out sees the count, and the buttons take them to log in.

// action is one button of the bar: the path it posts to after the
// post's, what it says, and its class.
type action struct{ path, label, class string }

// favourite, boost and bookmark are the bar's buttons, as they are when
// the reader has not marked the post (off) and when they have (on).
var (
	favouriteOff = action{"/favourite", "☆ Favourite", "fav"}
	favouriteOn  = action{"/unfavourite", "★ Favourited", "fav on"}
	boostOff     = action{"/boost", "↻ Boost", "boost"}
	boostOn      = action{"/unboost", "↻ Boosted", "boost on"}
	bookmarkOff  = action{"/bookmark", "Bookmark", "bookmark"}
	bookmarkOn   = action{"/unbookmark", "Bookmarked", "bookmark on"}
)

// writeActions writes the action bar of p to w; a post that may not
// be boosted (retwis.Visibility.Boostable) has no Boost button.
func writeActions(w io.StringWriter, p retwis.Post) {
	fav, boost, mark := favouriteOff, boostOff, bookmarkOff
	if p.Favourited {
		fav = favouriteOn
	}
	if p.Reblogged {
		boost = boostOn
	}
	if p.Bookmarked {
		mark = bookmarkOn
	}
	path := retwis.PostPath(p.ID) // digits: nothing to escape
	w.WriteString(`<div class="actions">`)
	writeButton(w, path, fav, p.Favourited, p.Favourites)
	if p.Visibility.Boostable() {
		writeButton(w, path, boost, p.Reblogged, p.Reblogs)
	}
	writeButton(w, path, mark, p.Bookmarked, 0) // bookmarks are private: no count
	w.WriteString(`</div>`)
}

// writeButton writes the form of one action of the post at path, with
// its count when there is one (a count of zero is not shown, as
// Mastodon's apps show none).
func writeButton(w io.StringWriter, path string, a action, pressed bool, count int64) {
	w.WriteString(`<form method="post" action="`)
	w.WriteString(path)
	w.WriteString(a.path)
	w.WriteString(`"><button class="`)
	w.WriteString(a.class)
	if pressed {
		w.WriteString(`" aria-pressed="true">`)
	} else {
		w.WriteString(`" aria-pressed="false">`)
	}
	w.WriteString(a.label)
	if count > 0 {
		w.WriteString(` <span class="count">`)
		w.WriteString(strconv.FormatInt(count, 10))
		w.WriteString(`</span>`)
	}
	w.WriteString(`</button></form>`)
}

// ActionsHTML returns the action bar of p, as Fragments writes it.
func ActionsHTML(p retwis.Post) template.HTML {
	var b strings.Builder
	writeActions(&b, p)
	return template.HTML(b.String())
}
