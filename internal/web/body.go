package web

import (
	"html/template"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/retwis/retwis"
)

// shownURLRunes is how much of a link's address a post shows.
const shownURLRunes = 32

// bodyHTML returns the HTML of a post's body: its text escaped, with its
// mentions of users that existed when it was posted linked to their
// profiles, its tags to their pages, and its links to where they point
// (shown shortened, and marked as the author's, not the site's).
func bodyHTML(p retwis.Post) template.HTML {
	known := make(map[string]string, len(p.Mentions)) // folded -> as registered
	for _, name := range p.Mentions {
		known[retwis.FoldUsername(name)] = name
	}
	var b strings.Builder
	at := 0
	for _, e := range retwis.Entities(p.Body) {
		text := p.Body[e.Start:e.End]
		var link string
		switch e.Kind {
		case retwis.Mention:
			name, ok := known[retwis.FoldUsername(e.Name)]
			if !ok {
				continue // nobody of that name: plain text
			}
			link = `<a class="mention" href="` + profilePath(name) + `">` + template.HTMLEscapeString(text) + `</a>`
		case retwis.Tag:
			link = `<a class="tag" href="` + tagPath(e.Name) + `">` + template.HTMLEscapeString(text) + `</a>`
		case retwis.URL:
			link = `<a href="` + template.HTMLEscapeString(e.Name) + `" rel="nofollow noopener ugc">` +
				template.HTMLEscapeString(shortURL(e.Name)) + `</a>`
		}
		b.WriteString(template.HTMLEscapeString(p.Body[at:e.Start]))
		b.WriteString(link)
		at = e.End
	}
	b.WriteString(template.HTMLEscapeString(p.Body[at:]))
	return template.HTML(b.String())
}

// shortURL returns a link's address as a post shows it: without its
// scheme, and cut to shownURLRunes with an ellipsis.
func shortURL(link string) string {
	s := link
	for _, scheme := range []string{"https://", "http://"} {
		if len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme) {
			s = s[len(scheme):]
			break
		}
	}
	if utf8.RuneCountInString(s) <= shownURLRunes {
		return s
	}
	r := []rune(s)
	return string(r[:shownURLRunes-1]) + "…"
}

// tagPath returns the path of a tag's page.
func tagPath(tag string) string { return "/tag/" + url.PathEscape(tag) }
