package instance

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/schema"
)

// apiVersion is api_versions[mastodon] of the v2 entity: Mastodon 4.2,
// as Version says, came before api_versions (4.3), which is what apps
// read from a missing number; 0 says the same to those that decode it.
const apiVersion = 0

// feeds is a hashtag or live feed's access in configuration's
// timelines_access: this server's own posts are public, and there are
// no others.
type feeds struct {
	Local  string `json:"local"`
	Remote string `json:"remote"`
}

// configV2 is the configuration of the v2 entity.
type configV2 struct {
	URLs struct {
		Streaming      string  `json:"streaming"`
		Status         *string `json:"status"`
		About          string  `json:"about"`
		PrivacyPolicy  *string `json:"privacy_policy"`
		TermsOfService *string `json:"terms_of_service"`
	} `json:"urls"`
	Vapid struct {
		PublicKey string `json:"public_key"`
	} `json:"vapid"`
	Accounts struct {
		MaxDisplayNameLength       int `json:"max_display_name_length"`
		MaxNoteLength              int `json:"max_note_length"`
		MaxAvatarDescriptionLength int `json:"max_avatar_description_length"`
		MaxHeaderDescriptionLength int `json:"max_header_description_length"`
		MaxFeaturedTags            int `json:"max_featured_tags"`
		MaxPinnedStatuses          int `json:"max_pinned_statuses"`
		MaxProfileFields           int `json:"max_profile_fields"`
		ProfileFieldNameLimit      int `json:"profile_field_name_limit"`
		ProfileFieldValueLimit     int `json:"profile_field_value_limit"`
	} `json:"accounts"`
	Statuses         statusLimits `json:"statuses"`
	MediaAttachments struct {
		mediaLimitsV1
		DescriptionLimit int `json:"description_limit"`
	} `json:"media_attachments"`
	Polls       pollLimits `json:"polls"`
	Translation struct {
		Enabled bool `json:"enabled"`
	} `json:"translation"`
	TimelinesAccess struct {
		LiveFeeds         feeds `json:"live_feeds"`
		HashtagFeeds      feeds `json:"hashtag_feeds"`
		TrendingLinkFeeds feeds `json:"trending_link_feeds"`
	} `json:"timelines_access"`
	LimitedFederation bool `json:"limited_federation"`
}

// instanceV2 is Mastodon's Instance entity, every field of it
// (content/en/entities/Instance.md).
type instanceV2 struct {
	Domain      string  `json:"domain"`
	Title       string  `json:"title"`
	Version     string  `json:"version"`
	SourceURL   string  `json:"source_url"`
	Description string  `json:"description"`
	Wrapstodon  *string `json:"wrapstodon"`
	Usage       struct {
		Users struct {
			ActiveMonth int64 `json:"active_month"`
		} `json:"users"`
	} `json:"usage"`
	Thumbnail struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	} `json:"thumbnail"`
	Icon          []icon   `json:"icon"`
	Languages     []string `json:"languages"`
	Configuration configV2 `json:"configuration"`
	Registrations struct {
		Enabled          bool    `json:"enabled"`
		ApprovalRequired bool    `json:"approval_required"`
		Message          *string `json:"message"`
		MinAge           *int    `json:"min_age"`
		ReasonRequired   bool    `json:"reason_required"`
		URL              string  `json:"url"`
	} `json:"registrations"`
	APIVersions map[string]int `json:"api_versions"`
	Contact     struct {
		Email   string    `json:"email"`
		Account *struct{} `json:"account"`
	} `json:"contact"`
	Rules []rule `json:"rules"`
}

// icon is Mastodon's InstanceIcon entity.
type icon struct {
	Src  string `json:"src"`
	Size string `json:"size"`
}

// v2 answers GET /api/v2/instance.
func (s *Server) v2(w http.ResponseWriter, r *http.Request) {
	f, err := s.readFacts(r)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	origin := middleware.Origin(r)
	e := instanceV2{Domain: middleware.Host(r), Title: title, Version: Version, SourceURL: sourceURL, Description: description,
		Icon: []icon{{Src: thumbnailURL(r), Size: "128x128"}}, Languages: languages, Configuration: s.configV2(r),
		APIVersions: map[string]int{"mastodon": apiVersion}, Rules: f.rules}
	e.Usage.Users.ActiveMonth = f.usage.ActiveMonth
	e.Thumbnail.URL, e.Thumbnail.Description = thumbnailURL(r), title
	e.Registrations.Enabled, e.Registrations.URL = true, origin+"/"
	e.Contact.Email = s.Site.Contact
	apiwire.WriteJSON(w, http.StatusOK, e)
}

// configV2 returns the configuration of the v2 entity.
func (s *Server) configV2(r *http.Request) configV2 {
	var c configV2
	c.URLs.Streaming, c.URLs.About = streamingURL(r), middleware.Origin(r)+"/"
	c.Vapid.PublicKey = s.VapidKey(r.Context())
	c.Accounts.MaxDisplayNameLength, c.Accounts.MaxNoteLength = retwis.MaxDisplayNameLen, retwis.MaxBioLen
	c.Accounts.MaxPinnedStatuses = schema.MaxPins
	c.Statuses = statuses(s.Store.Opts.MaxPostChars)
	c.MediaAttachments.mediaLimitsV1, c.MediaAttachments.DescriptionLimit = s.mediaLimits(), retwis.MaxDescriptionChars
	public := feeds{Local: "public", Remote: "disabled"}
	c.TimelinesAccess.LiveFeeds, c.TimelinesAccess.HashtagFeeds, c.TimelinesAccess.TrendingLinkFeeds = public, public, public
	return c
}
