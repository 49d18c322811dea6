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
