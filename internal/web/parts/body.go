package parts

import (
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/retwis/retwis"
)

// shownURLRunes is how much of a link's address a post shows.
const shownURLRunes = 32

// BodyHTML returns the HTML of a post's body: its text escaped, each
// paragraph (retwis.Post.Paragraphs) in a <p> and each line break
// within one as <br>, with its mentions of users that existed when it
// was posted linked to their profiles, its tags to their pages, and its
// links to where they point (shown shortened, and marked as the
// author's, not the site's). The text of each link is isolated (<bdi>),
// so that a direction control in it turns nothing around it; the
// template isolates the whole body.
func BodyHTML(p retwis.Post) template.HTML {
	var b strings.Builder
	for _, para := range p.Paragraphs() {
		b.WriteString("<p>")
		for _, seg := range para {
			writeSegment(&b, seg)
		}
		b.WriteString("</p>")
	}
	return template.HTML(b.String())
}

// writeSegment writes the HTML of one segment of a post's body to b.
func writeSegment(b *strings.Builder, seg retwis.Segment) {
	text := template.HTMLEscapeString(seg.Text)
	switch seg.Kind {
	case retwis.EntityMention:
		b.WriteString(`<a class="mention" href="` + retwis.ProfilePath(seg.Name) + `"><bdi>` + text + `</bdi></a>`)
	case retwis.EntityTag:
		b.WriteString(`<a class="tag" href="` + retwis.TagPath(seg.Name) + `"><bdi>` + text + `</bdi></a>`)
	case retwis.EntityURL:
		b.WriteString(`<a href="` + template.HTMLEscapeString(seg.Name) + `" rel="nofollow noopener ugc"><bdi>` +
			template.HTMLEscapeString(shortURL(seg.Name)) + `</bdi></a>`)
	default:
		b.WriteString(strings.ReplaceAll(text, "\n", "<br>"))
	}
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
