package retwis

import (
	"net/url"
	"strconv"
)

// The paths of what a page links to, wherever the link is made: the
// pages' templates and redirects, and the URLs in the API's entities
// (which put the server's origin before them). A name or tag is escaped
// as one path segment, so that any name the original Retwis accepted,
// and any tag, makes a link to its own page.

// ProfilePath is the path of the profile of the user named username:
// /u/<username>.
func ProfilePath(username string) string { return "/u/" + url.PathEscape(username) }

// TagPath is the path of the page of tag: /tag/<tag>.
func TagPath(tag string) string { return "/tag/" + url.PathEscape(tag) }

// PostPath is the path of post pid's page, its permalink: /p/<pid>.
func PostPath(pid int64) string { return "/p/" + strconv.FormatInt(pid, 10) }

// ParseID reads the id of a post, an account or a notification as paths
// and parameters write it, PostPath's way: the decimal digits of a
// positive number, without sign or leading zeros. Anything else ("+1",
// "01", " 1", "1e3", "0") is no id, ok false, so that each thing has one
// path and one spelling.
func ParseID(s string) (id int64, ok bool) {
	if s == "" || len(s) > 19 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil { // beyond int64
		return 0, false
	}
	return n, true
}
