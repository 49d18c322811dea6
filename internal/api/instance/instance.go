package instance

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/accounts"
)

// Version is the Mastodon API version retwis answers as: apps read
// features from it, and this subset is that of Mastodon 4.2's.
const Version = "4.2.0 (compatible; retwis)"

// title and description are the instance's name and short description.
const (
	title       = "retwis"
	description = "A microblog on Redis."
	sourceURL   = "https://github.com/retwis/retwis"
)

// languages are the languages of the instance's pages.
var languages = []string{"en"}

// statusLimits is configuration[statuses]: posts of at most
// max_characters, a link counting as retwis.URLLength, with up to
// retwis.MaxAttachments pictures.
type statusLimits struct {
	MaxCharacters            int `json:"max_characters"`
	MaxMediaAttachments      int `json:"max_media_attachments"`
	CharactersReservedPerURL int `json:"characters_reserved_per_url"`
}

// mediaLimitsV1 is configuration[media_attachments] of v1: the pictures
// retwis takes, each of at most image_size_limit bytes and
// image_matrix_limit pixels; no video, so its limits are 0.
type mediaLimitsV1 struct {
	SupportedMimeTypes  []string `json:"supported_mime_types"`
	ImageSizeLimit      int64    `json:"image_size_limit"`
	ImageMatrixLimit    int64    `json:"image_matrix_limit"`
	VideoSizeLimit      int      `json:"video_size_limit"`
	VideoFrameRateLimit int      `json:"video_frame_rate_limit"`
	VideoMatrixLimit    int      `json:"video_matrix_limit"`
}

// pollLimits is configuration[polls]: retwis has no polls, so 0s.
type pollLimits struct {
	MaxOptions             int `json:"max_options"`
	MaxCharactersPerOption int `json:"max_characters_per_option"`
	MinExpiration          int `json:"min_expiration"`
	MaxExpiration          int `json:"max_expiration"`
}

// configV1 is the configuration of the v1 entity.
type configV1 struct {
	Accounts struct {
		MaxFeaturedTags int `json:"max_featured_tags"`
	} `json:"accounts"`
	Statuses         statusLimits  `json:"statuses"`
	MediaAttachments mediaLimitsV1 `json:"media_attachments"`
	Polls            pollLimits    `json:"polls"`
}

// statuses returns configuration[statuses] for posts of maxChars.
func statuses(maxChars int) statusLimits {
	return statusLimits{MaxCharacters: maxChars, MaxMediaAttachments: retwis.MaxAttachments, CharactersReservedPerURL: retwis.URLLength}
}

// mediaLimits returns configuration[media_attachments] of v1: the
// limits of the media service's pictures (none without one).
func (s *Server) mediaLimits() mediaLimitsV1 {
	if s.Media == nil {
		return mediaLimitsV1{SupportedMimeTypes: []string{}}
	}
	lim := s.Media.Limits()
	return mediaLimitsV1{SupportedMimeTypes: []string{"image/jpeg", "image/png", "image/gif", "image/webp"},
		ImageSizeLimit: lim.MaxBytes, ImageMatrixLimit: lim.MaxPixels}
}

// streamingURL is the base URL of the streaming API (Mastodon's apps
// add /api/v1/streaming): this server's own.
func streamingURL(r *http.Request) string {
	return strings.Replace(strings.Replace(middleware.Origin(r), "https://", "wss://", 1), "http://", "ws://", 1)
}

// thumbnailURL is the instance's picture.
func thumbnailURL(r *http.Request) string { return middleware.Origin(r) + "/static/avatar.png" }

// facts is what both entities read of the store, in one go.
type facts struct {
	users int64
	usage accounts.Usage
	rules []rule
}

// readFacts reads the users, the usage and the rules.
func (s *Server) readFacts(r *http.Request) (facts, error) {
	var f facts
	var err error
	if f.users, err = s.Store.UserCount(r.Context()); err != nil {
		return facts{}, err
	}
	if f.usage, err = s.Store.Usage(r.Context()); err != nil {
		return facts{}, err
	}
	rules, err := s.Store.Rules(r.Context())
	f.rules = rulesOf(rules)
	return f, err
}

// instanceV1 is Mastodon's V1::Instance entity, every field of it
// (content/en/entities/V1_Instance.md), and max_toot_chars, which Tusky
// and other apps of before configuration read.
type instanceV1 struct {
	URI              string            `json:"uri"`
	Title            string            `json:"title"`
	ShortDescription string            `json:"short_description"`
	Description      string            `json:"description"`
	Email            string            `json:"email"`
	Version          string            `json:"version"`
	URLs             map[string]string `json:"urls"`
	Stats            struct {
		UserCount   int64 `json:"user_count"`
		StatusCount int64 `json:"status_count"`
		DomainCount int64 `json:"domain_count"`
	} `json:"stats"`
	Thumbnail        *string   `json:"thumbnail"`
	Languages        []string  `json:"languages"`
	Registrations    bool      `json:"registrations"`
	ApprovalRequired bool      `json:"approval_required"`
	InvitesEnabled   bool      `json:"invites_enabled"`
	Configuration    configV1  `json:"configuration"`
	ContactAccount   *struct{} `json:"contact_account"`
	Rules            []rule    `json:"rules"`
	MaxTootChars     int       `json:"max_toot_chars"`
}

// v1 answers GET /api/v1/instance.
func (s *Server) v1(w http.ResponseWriter, r *http.Request) {
	f, err := s.readFacts(r)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	thumb := thumbnailURL(r)
	e := instanceV1{URI: middleware.Host(r), Title: title, ShortDescription: description, Description: description,
		Email: s.Site.Contact, Version: Version, URLs: map[string]string{"streaming_api": streamingURL(r)},
		Thumbnail: &thumb, Languages: languages, Registrations: true, Rules: f.rules, MaxTootChars: s.Store.Opts.MaxPostChars}
	e.Stats.UserCount, e.Stats.StatusCount, e.Stats.DomainCount = f.users, f.usage.Statuses, 1
	e.Configuration.Statuses = statuses(s.Store.Opts.MaxPostChars)
	e.Configuration.MediaAttachments = s.mediaLimits()
	apiwire.WriteJSON(w, http.StatusOK, e)
}

// rule is Mastodon's Rule entity.
type rule struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Hint string `json:"hint"`
}

// rulesOf returns the entities of rules.
func rulesOf(rules []store.Rule) []rule {
	out := make([]rule, len(rules))
	for i, r := range rules {
		out[i] = rule{ID: strconv.FormatInt(r.ID, 10), Text: r.Text, Hint: r.Hint}
	}
	return out
}
