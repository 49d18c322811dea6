package entity

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// Stamp writes a time as Mastodon does: ISO 8601 in UTC, to the
// millisecond.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ID writes an id as Mastodon does: a string of its decimal digits.
func ID(n int64) string { return strconv.FormatInt(n, 10) }

// Site turns retwis's domain types into entities for clients of one
// origin, the scheme and host the URLs in them begin with.
type Site struct{ origin string }

// SiteOf returns the Site of a request: its origin, as
// middleware.Origin says.
func SiteOf(r *http.Request) Site { return Site{origin: middleware.Origin(r)} }

// SiteAt returns the Site of origin.
func SiteAt(origin string) Site { return Site{origin: origin} }

// ProfileURL is the absolute URL of a user's page.
func (st Site) ProfileURL(username string) string { return st.origin + retwis.ProfilePath(username) }

// TagURL is the absolute URL of a tag's page.
func (st Site) TagURL(name string) string { return st.origin + retwis.TagPath(name) }

// PostURL is the absolute URL of a post's page.
func (st Site) PostURL(pid int64) string { return st.origin + retwis.PostPath(pid) }

// Account returns the entity of a summary.
func (st Site) Account(sum retwis.Summary) Account {
	created := sum.Joined
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	a := Account{
		ID: ID(sum.User.ID), Username: sum.User.Username, Acct: sum.User.Username,
		DisplayName: sum.DisplayName, Discoverable: true,
		CreatedAt: Stamp(created.UTC().Truncate(24 * time.Hour)), Note: paragraph(template.HTMLEscapeString(sum.Bio)),
		URL: st.ProfileURL(sum.User.Username), URI: st.ProfileURL(sum.User.Username),
		Avatar: st.avatar(sum), AvatarStatic: st.avatar(sum), Header: st.header(sum), HeaderStatic: st.header(sum),
		FollowersCount: sum.Counts.Followers, FollowingCount: sum.Counts.Following, StatusesCount: sum.Posts,
		Emojis: []struct{}{}, Fields: []struct{}{},
	}
	if !sum.LastPost.IsZero() {
		day := sum.LastPost.UTC().Format(time.DateOnly)
		a.LastStatusAt = &day
	}
	return a
}

// CredentialAccount is the account of the user themselves, with its
// source.
func (st Site) CredentialAccount(sum retwis.Summary) Account {
	a := st.Account(sum)
	a.Source = &Source{Note: sum.Bio, Fields: []struct{}{}, Privacy: "public"}
	return a
}

// paragraph wraps HTML in a paragraph, or returns "" for nothing.
func paragraph(html string) string {
	if html == "" {
		return ""
	}
	return "<p>" + html + "</p>"
}

// Content returns a post's body as Mastodon's sanitized HTML (the text
// escaped, each paragraph (retwis.Post.Paragraphs) in a <p> and each
// line break within one as <br>, its mentions, tags and links marked up
// as Mastodon marks them) and its tags, each once, in one pass over its
// entities. A post of pictures without text has none ("").
func (st Site) Content(p retwis.Post) (string, []TagRef) {
	var b strings.Builder
	tags := []TagRef{}
	if p.Body == "" {
		return "", tags
	}
	seen := map[string]bool{}
	for _, para := range p.Paragraphs() {
		b.WriteString("<p>")
		for _, seg := range para {
			if f := st.segment(&b, seg); f != "" && !seen[f] {
				seen[f] = true
				tags = append(tags, TagRef{Name: strings.ToLower(seg.Name), URL: st.TagURL(seg.Name)})
			}
		}
		b.WriteString("</p>")
	}
	return b.String(), tags
}

// segment writes the HTML of one segment of a post's body to b, and
// returns the folded name of a tag ("" for anything else).
func (st Site) segment(b *strings.Builder, seg retwis.Segment) (tag string) {
	text := template.HTMLEscapeString(seg.Text)
	switch seg.Kind {
	case retwis.EntityMention:
		b.WriteString(`<span class="h-card"><a href="` + template.HTMLEscapeString(st.ProfileURL(seg.Name)) +
			`" class="u-url mention">@<span>` + template.HTMLEscapeString(seg.Name) + `</span></a></span>`)
	case retwis.EntityTag:
		url := template.HTMLEscapeString(st.TagURL(seg.Name))
		b.WriteString(`<a href="` + url + `" class="mention hashtag" rel="tag">#<span>` + template.HTMLEscapeString(seg.Name) + `</span></a>`)
		return retwis.FoldTag(seg.Name)
	case retwis.EntityURL:
		b.WriteString(`<a href="` + template.HTMLEscapeString(seg.Name) + `" rel="nofollow noopener" target="_blank">` + text + `</a>`)
	default:
		b.WriteString(strings.ReplaceAll(text, "\n", "<br>"))
	}
	return ""
}

// Status returns the entity of post p by the author summed up in author,
// with its count of replies, its counts of favourites and boosts, its
// reader's marks and the preview of its link.
func (st Site) Status(p retwis.Post, author retwis.Summary, replies int64) Status {
	content, tags := st.Content(p)
	s := Status{
		ID: ID(p.ID), URI: st.PostURL(p.ID), URL: st.PostURL(p.ID), CreatedAt: Stamp(p.Time),
		Account: st.Account(author), Content: content, Visibility: p.Visibility.String(),
		MediaAttachments: st.MediaList(p.Media), Mentions: []Mention{}, Tags: tags, Emojis: []struct{}{},
		RepliesCount: replies, Filtered: []FilterResult{}, SpoilerText: p.Warning, Sensitive: p.Sensitive || p.Warning != "",
		FavouritesCount: p.Favourites, Favourited: p.Favourited, Bookmarked: p.Bookmarked, Pinned: p.Pinned,
		ReblogsCount: p.Reblogs, Reblogged: p.Reblogged,
	}
	for i, name := range p.Mentions {
		if i < len(p.MentionIDs) {
			s.Mentions = append(s.Mentions, Mention{ID: ID(p.MentionIDs[i]), Username: name, URL: st.ProfileURL(name), Acct: name})
		}
	}
	if !p.Edited.IsZero() {
		at := Stamp(p.Edited)
		s.EditedAt = &at
	}
	if p.InReplyTo > 0 {
		parent := ID(p.InReplyTo)
		s.InReplyToID = &parent
		if p.ReplyToID > 0 {
			acct := ID(p.ReplyToID)
			s.InReplyToAccountID = &acct
		}
	}
	s.Card = st.Card(p.Card)
	return s
}

// boosts makes s, a boost's entity, that of a boost of post o: without
// content of its own, as Mastodon's, and reblogged when the reader
// boosted o.
func (s *Status) boosts(o Status) {
	s.Reblog, s.Content, s.Tags, s.Mentions, s.MediaAttachments = &o, "", []TagRef{}, []Mention{}, []MediaAttachment{}
	s.SpoilerText, s.Sensitive, s.Reblogged = "", false, o.Reblogged
}

// Tag returns the Tag entity of a tag with its history, the newest day
// first, each number a string as Mastodon's.
func (st Site) Tag(name string, history []retwis.DayCount) Tag {
	t := Tag{TagRef: TagRef{Name: name, URL: st.TagURL(name)}, History: make([]TagHistory, len(history))}
	for i, d := range history {
		t.History[i] = TagHistory{Day: strconv.FormatInt(d.Day.Unix(), 10),
			Uses: strconv.FormatInt(d.Posts, 10), Accounts: strconv.FormatInt(d.Accounts, 10)}
	}
	return t
}

// NotificationType is a notification's type as Mastodon names it: a
// reply is a mention, as in Mastodon.
func NotificationType(k retwis.NotificationKind) string {
	switch k {
	case retwis.NotificationFollow, retwis.NotificationUpdate, retwis.NotificationFavourite, retwis.NotificationReblog:
		return k.String()
	}
	return "mention"
}
