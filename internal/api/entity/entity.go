// Package entity is the client API's entities, Mastodon's, as its
// documentation shapes them (ids as strings, times in ISO 8601, and the
// fields retwis has no concept of, such as polls, present with
// empty values, so that apps do not break on them), and their building
// from retwis's types: for one origin, from what a caller read (Site),
// or with the reads they need in a constant number of round trips
// (Builder). internal/api answers them, and internal/streaming's events
// carry them.
package entity

// Account is Mastodon's Account.
type Account struct {
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
	Source         *Source    `json:"source,omitempty"`
}

// Source is what verify_credentials adds to the user's own account.
type Source struct {
	Note                string     `json:"note"`
	Fields              []struct{} `json:"fields"`
	Privacy             string     `json:"privacy"`
	Sensitive           bool       `json:"sensitive"`
	Language            string     `json:"language"`
	FollowRequestsCount int        `json:"follow_requests_count"`
}

// Status is Mastodon's Status.
type Status struct {
	ID                 string            `json:"id"`
	URI                string            `json:"uri"`
	URL                string            `json:"url"`
	CreatedAt          string            `json:"created_at"`
	Account            Account           `json:"account"`
	Content            string            `json:"content"`
	Text               string            `json:"text,omitempty"`
	Visibility         string            `json:"visibility"`
	Sensitive          bool              `json:"sensitive"`
	SpoilerText        string            `json:"spoiler_text"`
	MediaAttachments   []MediaAttachment `json:"media_attachments"`
	Application        *Application      `json:"application"`
	Mentions           []Mention         `json:"mentions"`
	Tags               []TagRef          `json:"tags"`
	Emojis             []struct{}        `json:"emojis"`
	ReblogsCount       int64             `json:"reblogs_count"`
	FavouritesCount    int64             `json:"favourites_count"`
	RepliesCount       int64             `json:"replies_count"`
	InReplyToID        *string           `json:"in_reply_to_id"`
	InReplyToAccountID *string           `json:"in_reply_to_account_id"`
	Reblog             *Status           `json:"reblog"`
	Poll               *struct{}         `json:"poll"`
	Card               *PreviewCard      `json:"card"`
	Language           *string           `json:"language"`
	EditedAt           *string           `json:"edited_at"`
	Favourited         bool              `json:"favourited"`
	Reblogged          bool              `json:"reblogged"`
	Muted              bool              `json:"muted"`
	Bookmarked         bool              `json:"bookmarked"`
	Pinned             bool              `json:"pinned"`
	Filtered           []FilterResult    `json:"filtered"`
}

// Mention is Mastodon's Status::Mention.
type Mention struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	URL      string `json:"url"`
	Acct     string `json:"acct"`
}

// TagRef is Mastodon's Status::Tag, and the base of its Tag.
type TagRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Tag is Mastodon's Tag.
type Tag struct {
	TagRef
	History   []TagHistory `json:"history"`
	Following bool         `json:"following"`
}

// TagHistory is one day of a Tag's use.
type TagHistory struct {
	Day      string `json:"day"`
	Uses     string `json:"uses"`
	Accounts string `json:"accounts"`
}

// Application is Mastodon's Application.
type Application struct {
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

// Relationship is Mastodon's Relationship.
type Relationship struct {
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

// Notification is Mastodon's Notification.
type Notification struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	CreatedAt string  `json:"created_at"`
	Account   Account `json:"account"`
	Status    *Status `json:"status,omitempty"`
}

// Conversation is Mastodon's Conversation: a thread of direct posts, the
// accounts it is between and its newest post.
type Conversation struct {
	ID         string    `json:"id"`
	Unread     bool      `json:"unread"`
	Accounts   []Account `json:"accounts"`
	LastStatus *Status   `json:"last_status"`
}
