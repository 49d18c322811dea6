package web

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/retwis/retwis/internal/bounded"

	"github.com/retwis/retwis"
)

// holeMarker stands for the one value of a kept part that changes on
// every render (the compose form's idempotency key) while the part is
// rendered: the part is kept split around it.
const holeMarker = "\ue000hole\ue000"

// parts renders the pieces of pages that many requests show alike (a
// viewer's navigation bar, the compose form, a suggestion to follow)
// through their templates, once, and keeps them: executing a template
// costs a reflective call per action (tens of microseconds a page), a
// kept part a map lookup. The templates of parts are defined in
// partials.html and take everything they show from their data, so that
// what they render is a function of the key it is kept under.
type parts struct {
	tmpl  *template.Template // with the parts' templates
	cache *bounded.Map[string, part]
}

// part is a kept part: its HTML, or its HTML before and after its hole.
type part struct {
	head, tail string
	hole       bool
}

func newParts(capacity int) *parts {
	return &parts{cache: bounded.New[string, part](capacity)}
}

// HTML returns the template name executed on the data that data
// returns (called only if the part is not kept), kept under key: key
// must tell apart every data that renders differently ("": render it
// every time, keep nothing). If the part has a hole (data carries
// holeMarker at its place), fill is put there, escaped; the hole must
// be in text or a quoted attribute value, where that escaping is
// html/template's.
func (p *parts) HTML(name, key string, data func() any, fill string) (template.HTML, error) {
	var pt part
	ok := false
	if key != "" {
		key = name + "\x00" + key
		pt, ok = p.cache.Load(key)
	}
	if !ok {
		html, err := p.render(name, data())
		if err != nil {
			return "", err
		}
		pt = part{head: html}
		if at := strings.LastIndex(html, holeMarker); at >= 0 {
			pt = part{head: html[:at], tail: html[at+len(holeMarker):], hole: true}
		}
		if key != "" {
			p.cache.Store(key, pt)
		}
	}
	if !pt.hole {
		return template.HTML(pt.head), nil
	}
	return template.HTML(pt.head + template.HTMLEscapeString(fill) + pt.tail), nil
}

func (p *parts) render(name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := p.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		return "", fmt.Errorf("web: render %s: %w", name, err)
	}
	return buf.String(), nil
}

// nav returns the navigation bar of v, kept by viewer and unread count;
// a search's, whose box shows its query, is rendered each time.
func (p *parts) nav(v *view) (template.HTML, error) {
	key := ""
	switch {
	case v.Query != "":
	case v.Viewer == nil:
		key = "out"
	default:
		key = "in\x00" + v.Viewer.Username + "\x00" + strconv.FormatInt(v.Unread, 10)
	}
	return p.HTML("nav", key, func() any { return v }, "")
}

// homeCard returns the first card of the home page of v, its compose
// form's key put in fresh, kept by viewer and counts; one that tells of
// failed logins, of a form's error or shows a draft is rendered each
// time.
func (p *parts) homeCard(v *view) (template.HTML, error) {
	key := ""
	if v.LoginFailures.N == 0 && v.Error == "" && v.Draft == "" {
		c := v.Profile.Counts
		key = v.Viewer.Username + "\x00" + strconv.FormatInt(c.Followers, 10) + "\x00" + strconv.FormatInt(c.Following, 10)
	}
	data := func() any {
		d := *v
		d.PostKey = holeMarker
		return &d
	}
	return p.HTML("home-card", key, data, v.PostKey)
}

// suggestions returns the items of the home page's who to follow, each
// kept by name and how many of the viewer's follows follow them.
func (p *parts) suggestions(ss []retwis.Suggestion) (template.HTML, error) {
	var b strings.Builder
	for _, s := range ss {
		html, err := p.HTML("suggestion", s.User.Username+"\x00"+strconv.Itoa(s.FollowedBy), func() any { return s }, "")
		if err != nil {
			return "", err
		}
		b.WriteString(string(html))
	}
	return template.HTML(b.String()), nil
}

// keyed returns the template name executed on data, kept under data
// itself, spelled out in Go syntax (%#v): data must hold no pointer,
// whose address would stand for what it points to, and nothing the
// part does not show, which would only keep copies apart.
func (p *parts) keyed(name string, data any) (template.HTML, error) {
	return p.HTML(name, fmt.Sprintf("%#v", data), func() any { return data }, "")
}

// profileCard is what the first card of a profile page shows: the
// profile without its posts, what links the viewer to the user, and
// whether the viewer (logged in) just reported them.
type profileCard struct {
	Profile      retwis.Profile
	Relationship retwis.Relationship
	Viewer       retwis.User
	LoggedIn     bool
	Reported     bool
}

// profileCard returns the first card of the profile page of v.
func (p *parts) profileCard(v *view) (template.HTML, error) {
	c := profileCard{Profile: v.Profile, Relationship: v.Relationship, Reported: v.Reported}
	c.Profile.Page = retwis.Page{}
	if v.Viewer != nil {
		c.Viewer, c.LoggedIn = *v.Viewer, true
	}
	return p.keyed("profile-card", c)
}

// timelineCards is what the cards of the global timeline above its
// posts show: the trending tags and the latest users' names.
type timelineCards struct {
	Tags  []string
	Users []string
}

// timelineCards returns the cards of the global timeline page of v,
// which every viewer sees alike.
func (p *parts) timelineCards(v *view) (template.HTML, error) {
	c := timelineCards{Users: v.Users}
	for _, t := range v.Trends {
		c.Tags = append(c.Tags, t.Tag)
	}
	return p.keyed("timeline-cards", c)
}
