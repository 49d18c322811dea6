package page

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/web/parts"
)

// keptParts are the parts of pages that many requests show alike, each
// kept (see parts.Cache) under a key that tells apart everything it
// shows. Their templates are defined in partials.html.
type keptParts struct {
	*parts.Cache
}

// nav returns the navigation bar of v, kept by viewer and unread count;
// a search's, whose box shows its query, is rendered each time.
func (p *keptParts) nav(v *View) (template.HTML, error) {
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
// form's key put in fresh, kept by viewer, display name and counts; one that tells of
// failed logins, of a form's error or shows a draft is rendered each
// time.
func (p *keptParts) homeCard(v *View) (template.HTML, error) {
	key := ""
	if v.LoginFailures.N == 0 && v.Error == "" && v.Draft == "" && v.DraftVisibility == retwis.Public {
		c := v.Profile.Counts
		key = v.Viewer.Username + "\x00" + v.Profile.DisplayName + "\x00" + strconv.FormatInt(c.Followers, 10) + "\x00" + strconv.FormatInt(c.Following, 10)
	}
	data := func() any {
		d := *v
		d.PostKey = parts.HoleMarker
		return &d
	}
	return p.HTML("home-card", key, data, v.PostKey)
}

// suggestions returns the items of the home page's who to follow, each
// kept by name and how many of the viewer's follows follow them.
func (p *keptParts) suggestions(ss []retwis.Suggestion) (template.HTML, error) {
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

// profileCard is what the first card of a profile page shows: the
// profile without its posts, what links the viewer to the user, and
// whether the viewer (logged in) just reported them; the path of the
// user's header picture ("": none).
type profileCard struct {
	Profile      retwis.Profile
	Header       string
	Relationship retwis.Relationship
	Viewer       retwis.User
	LoggedIn     bool
	Reported     bool
}

// profileCard returns the first card of the profile page of v.
func (p *keptParts) profileCard(v *View) (template.HTML, error) {
	c := profileCard{Profile: v.Profile, Header: v.Header, Relationship: v.Relationship, Reported: v.Reported}
	c.Profile.Page, c.Profile.Pinned = retwis.Page{}, nil // not shown: they would only keep copies apart
	if v.Viewer != nil {
		c.Viewer, c.LoggedIn = *v.Viewer, true
	}
	return p.Keyed("profile-card", c)
}

// timelineCards is what the cards of the global timeline above its
// posts show: the trending tags and the latest users' names.
type timelineCards struct {
	Tags  []string
	Users []string
}

// timelineCards returns the cards of the global timeline page of v,
// which every viewer sees alike.
func (p *keptParts) timelineCards(v *View) (template.HTML, error) {
	c := timelineCards{Users: v.Users}
	for _, t := range v.Trends {
		c.Tags = append(c.Tags, t.Tag)
	}
	return p.Keyed("timeline-cards", c)
}
