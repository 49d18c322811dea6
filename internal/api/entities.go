package api

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// The entities are Mastodon's, as its documentation shapes them: ids as
// strings, times in ISO 8601, and the fields retwis has no concept of
// (media, polls, boosts)
// present with empty values, so that apps do not break on them.

// account is Mastodon's Account.
type account struct {
	ID             string     `json:"id"`
	Username       string     `json:"username"`
	Acct           string     `json:"acct"`
	DisplayName    string     `json:"display_name"`
	Locked         bool       `json:"locked"`
	Bot            bool       `json:"bot"`
	Discoverable   bool       `json:"discoverable"`
	Group          bool       `json:"group"`
	CreatedAt      string     `json:"created_at"`
	Note           string     `json:"note"`
	URL            string     `json:"url"`
	URI            string     `json:"uri"`
	Avatar         string     `json:"avatar"`
	AvatarStatic   string     `json:"avatar_static"`
	Header         string     `json:"header"`
	HeaderStatic   string     `json:"header_static"`
	FollowersCount int64      `json:"followers_count"`
	FollowingCount int64      `json:"following_count"`
	StatusesCount  int64      `json:"statuses_count"`
	LastStatusAt   *string    `json:"last_status_at"`
	Emojis         []struct{} `json:"emojis"`
	Fields         []struct{} `json:"fields"`
	Source         *source    `json:"source,omitempty"`
}

// source is what verify_credentials adds to the user's own account.
type source struct {
	Note                string     `json:"note"`
	Fields              []struct{} `json:"fields"`
	Privacy             string     `json:"privacy"`
	Sensitive           bool       `json:"sensitive"`
	Language            string     `json:"language"`
	FollowRequestsCount int        `json:"follow_requests_count"`
}

// status is Mastodon's Status.
type status struct {
	ID                 string       `json:"id"`
	URI                string       `json:"uri"`
	URL                string       `json:"url"`
	CreatedAt          string       `json:"created_at"`
	Account            account      `json:"account"`
	Content            string       `json:"content"`
	Text               string       `json:"text,omitempty"`
	Visibility         string       `json:"visibility"`
	Sensitive          bool         `json:"sensitive"`
	SpoilerText        string       `json:"spoiler_text"`
	MediaAttachments   []struct{}   `json:"media_attachments"`
	Application        *application `json:"application"`
	Mentions           []mention    `json:"mentions"`
	Tags               []tagRef     `json:"tags"`
	Emojis             []struct{}   `json:"emojis"`
	ReblogsCount       int64        `json:"reblogs_count"`
	FavouritesCount    int64        `json:"favourites_count"`
	RepliesCount       int64        `json:"replies_count"`
	InReplyToID        *string      `json:"in_reply_to_id"`
	InReplyToAccountID *string      `json:"in_reply_to_account_id"`
	Reblog             *status      `json:"reblog"`
	Poll               *struct{}    `json:"poll"`
	Card               *struct{}    `json:"card"`
	Language           *string      `json:"language"`
	EditedAt           *string      `json:"edited_at"`
	Favourited         bool         `json:"favourited"`
	Reblogged          bool         `json:"reblogged"`
	Muted              bool         `json:"muted"`
	Bookmarked         bool         `json:"bookmarked"`
	Pinned             bool         `json:"pinned"`
	Filtered           []struct{}   `json:"filtered"`
}

// mention is Mastodon's Status::Mention.
type mention struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	URL      string `json:"url"`
	Acct     string `json:"acct"`
}

// tagRef is Mastodon's Status::Tag, and the base of its Tag.
type tagRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// tag is Mastodon's Tag.
type tag struct {
	tagRef
	History   []tagHistory `json:"history"`
	Following bool         `json:"following"`
}

// tagHistory is one day of a Tag's use.
type tagHistory struct {
	Day      string `json:"day"`
	Uses     string `json:"uses"`
	Accounts string `json:"accounts"`
}

// application is Mastodon's Application.
type application struct {
	ID           string   `json:"id,omitempty"`
	Name         string   `json:"name"`
	Website      *string  `json:"website"`
	Scopes       []string `json:"scopes,omitempty"`
	RedirectURI  string   `json:"redirect_uri,omitempty"`
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	ClientID     string   `json:"client_id,omitempty"`
	ClientSecret string   `json:"client_secret,omitempty"`
	VapidKey     string   `json:"vapid_key,omitempty"`
}

// relationship is Mastodon's Relationship.
type relationship struct {
	ID                  string   `json:"id"`
	Following           bool     `json:"following"`
	ShowingReblogs      bool     `json:"showing_reblogs"`
	Notifying           bool     `json:"notifying"`
	Languages           []string `json:"languages"`
	FollowedBy          bool     `json:"followed_by"`
	Blocking            bool     `json:"blocking"`
	BlockedBy           bool     `json:"blocked_by"`
	Muting              bool     `json:"muting"`
	MutingNotifications bool     `json:"muting_notifications"`
	Requested           bool     `json:"requested"`
	RequestedBy         bool     `json:"requested_by"`
	DomainBlocking      bool     `json:"domain_blocking"`
	Endorsed            bool     `json:"endorsed"`
	Note                string   `json:"note"`
}

// notification is Mastodon's Notification.
type notification struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	CreatedAt string  `json:"created_at"`
	Account   account `json:"account"`
	Status    *status `json:"status,omitempty"`
}

// stamp writes a time as Mastodon does: ISO 8601 in UTC, to the
// millisecond.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// site turns retwis's domain types into entities for one request.
type site struct{ origin string }

func newSite(r *http.Request) site { return site{origin: middleware.Origin(r)} }

// profileURL, tagURL and postURL are the absolute URLs of the pages of
// a user, a tag and a post.
func (st site) profileURL(username string) string { return st.origin + retwis.ProfilePath(username) }
func (st site) tagURL(name string) string         { return st.origin + retwis.TagPath(name) }
func (st site) postURL(pid int64) string          { return st.origin + retwis.PostPath(pid) }

func id(n int64) string { return strconv.FormatInt(n, 10) }

// account returns the entity of a summary.
func (st site) account(sum retwis.Summary) account {
	created := sum.Joined
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	a := account{
		ID: id(sum.User.ID), Username: sum.User.Username, Acct: sum.User.Username,
		DisplayName: sum.DisplayName, Discoverable: true,
		CreatedAt: stamp(created.UTC().Truncate(24 * time.Hour)), Note: paragraph(template.HTMLEscapeString(sum.Bio)),
		URL: st.profileURL(sum.User.Username), URI: st.profileURL(sum.User.Username),
		Avatar: st.origin + "/static/avatar.png", AvatarStatic: st.origin + "/static/avatar.png",
		Header: st.origin + "/static/header.png", HeaderStatic: st.origin + "/static/header.png",
		FollowersCount: sum.Counts.Followers, FollowingCount: sum.Counts.Following, StatusesCount: sum.Posts,
		Emojis: []struct{}{}, Fields: []struct{}{},
	}
	if !sum.LastPost.IsZero() {
		day := sum.LastPost.UTC().Format(time.DateOnly)
		a.LastStatusAt = &day
	}
	return a
}

// credentialAccount is the account of the user themselves, with its
// source.
func (st site) credentialAccount(sum retwis.Summary) account {
	a := st.account(sum)
	a.Source = &source{Note: sum.Bio, Fields: []struct{}{}, Privacy: "public"}
	return a
}

// paragraph wraps HTML in a paragraph, or returns "" for nothing.
func paragraph(html string) string {
	if html == "" {
		return ""
	}
	return "<p>" + html + "</p>"
}

// content returns a post's body as Mastodon's sanitized HTML (the text
// escaped, each paragraph (retwis.Post.Paragraphs) in a <p> and each
// line break within one as <br>, its mentions, tags and links marked up
// as Mastodon marks them) and its tags, each once, in one pass over its
// entities.
func (st site) content(p retwis.Post) (string, []tagRef) {
	var b strings.Builder
	tags := []tagRef{}
	seen := map[string]bool{}
	for _, para := range p.Paragraphs() {
		b.WriteString("<p>")
		for _, seg := range para {
			if f := st.segment(&b, seg); f != "" && !seen[f] {
				seen[f] = true
				tags = append(tags, tagRef{Name: strings.ToLower(seg.Name), URL: st.tagURL(seg.Name)})
			}
		}
		b.WriteString("</p>")
	}
	return b.String(), tags
}

// segment writes the HTML of one segment of a post's body to b, and
// returns the folded name of a tag ("" for anything else).
func (st site) segment(b *strings.Builder, seg retwis.Segment) (tag string) {
	text := template.HTMLEscapeString(seg.Text)
	switch seg.Kind {
	case retwis.EntityMention:
		b.WriteString(`<span class="h-card"><a href="` + template.HTMLEscapeString(st.profileURL(seg.Name)) +
			`" class="u-url mention">@<span>` + template.HTMLEscapeString(seg.Name) + `</span></a></span>`)
	case retwis.EntityTag:
		url := template.HTMLEscapeString(st.tagURL(seg.Name))
		b.WriteString(`<a href="` + url + `" class="mention hashtag" rel="tag">#<span>` + template.HTMLEscapeString(seg.Name) + `</span></a>`)
		return retwis.FoldTag(seg.Name)
	case retwis.EntityURL:
		b.WriteString(`<a href="` + template.HTMLEscapeString(seg.Name) + `" rel="nofollow noopener" target="_blank">` + text + `</a>`)
	default:
		b.WriteString(strings.ReplaceAll(text, "\n", "<br>"))
	}
	return ""
}

// status returns the entity of post p by the author summed up in author,
// with its count of replies, its counts of favourites and boosts and
// its reader's marks.
func (st site) status(p retwis.Post, author retwis.Summary, replies int64) status {
	content, tags := st.content(p)
	s := status{
		ID: id(p.ID), URI: st.postURL(p.ID), URL: st.postURL(p.ID), CreatedAt: stamp(p.Time),
		Account: st.account(author), Content: content, Visibility: p.Visibility.String(),
		MediaAttachments: []struct{}{}, Mentions: []mention{}, Tags: tags, Emojis: []struct{}{},
		RepliesCount: replies, Filtered: []struct{}{}, SpoilerText: p.Warning, Sensitive: p.Warning != "",
		FavouritesCount: p.Favourites, Favourited: p.Favourited, Bookmarked: p.Bookmarked, Pinned: p.Pinned,
		ReblogsCount: p.Reblogs, Reblogged: p.Reblogged,
	}
	for i, name := range p.Mentions {
		if i < len(p.MentionIDs) {
			s.Mentions = append(s.Mentions, mention{ID: id(p.MentionIDs[i]), Username: name, URL: st.profileURL(name), Acct: name})
		}
	}
	if !p.Edited.IsZero() {
		at := stamp(p.Edited)
		s.EditedAt = &at
	}
	if p.InReplyTo > 0 {
		parent := id(p.InReplyTo)
		s.InReplyToID = &parent
		if p.ReplyToID > 0 {
			acct := id(p.ReplyToID)
			s.InReplyToAccountID = &acct
		}
	}
	return s
}
