package instance

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/middleware"
)

// Version is the Mastodon API version retwis answers as: apps read
// features from it, and this subset is that of Mastodon 4.2's.
const Version = "4.2.0 (compatible; retwis)"

// configuration is the configuration part of both instance entities.
type configuration struct {
	URLs *struct {
		Streaming string `json:"streaming"`
	} `json:"urls,omitempty"`
	Accounts struct {
		MaxFeaturedTags int `json:"max_featured_tags"`
	} `json:"accounts"`
	Statuses struct {
		MaxCharacters            int `json:"max_characters"`
		MaxMediaAttachments      int `json:"max_media_attachments"`
		CharactersReservedPerURL int `json:"characters_reserved_per_url"`
	} `json:"statuses"`
	MediaAttachments struct {
		SupportedMimeTypes []string `json:"supported_mime_types"`
	} `json:"media_attachments"`
	Polls struct {
		MaxOptions int `json:"max_options"`
	} `json:"polls"`
}

// limits returns the configuration: posts of at most maxChars
// characters, a link counting as retwis.URLLength, no media, no polls.
func limits(maxChars int) configuration {
	var c configuration
	c.Statuses.MaxCharacters = maxChars
	c.Statuses.CharactersReservedPerURL = retwis.URLLength
	c.MediaAttachments.SupportedMimeTypes = []string{}
	return c
}

// streamingURL is the base URL of the streaming API (Mastodon's apps
// add /api/v1/streaming): this server's own.
func streamingURL(r *http.Request) string {
	return strings.Replace(strings.Replace(middleware.Origin(r), "https://", "wss://", 1), "http://", "ws://", 1)
}

// instanceV1 answers GET /api/v1/instance.
func (s *Server) instanceV1(w http.ResponseWriter, r *http.Request) {
	users, err := s.Store.UserCount(r.Context())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, map[string]any{
		"uri": middleware.Host(r), "title": "retwis", "short_description": "A microblog on Redis.",
		"description": "A microblog on Redis.", "email": "", "version": Version,
		"urls":      map[string]string{"streaming_api": streamingURL(r)},
		"stats":     map[string]int64{"user_count": users, "status_count": 0, "domain_count": 1},
		"thumbnail": nil, "languages": []string{}, "registrations": true, "approval_required": false,
		"invites_enabled": false, "configuration": limits(s.Store.Opts.MaxPostChars), "contact_account": nil, "rules": []struct{}{},
		"max_toot_chars": s.Store.Opts.MaxPostChars,
	})
}

// instanceV2 answers GET /api/v2/instance.
func (s *Server) instanceV2(w http.ResponseWriter, r *http.Request) {
	users, err := s.Store.UserCount(r.Context())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	conf := limits(s.Store.Opts.MaxPostChars)
	conf.URLs = &struct {
		Streaming string `json:"streaming"`
	}{streamingURL(r)}
	apiwire.WriteJSON(w, http.StatusOK, map[string]any{
		"domain": middleware.Host(r), "title": "retwis", "version": Version, "source_url": "https://github.com/retwis/retwis",
		"description": "A microblog on Redis.", "usage": map[string]any{"users": map[string]int64{"active_month": users}},
		"thumbnail": map[string]any{"url": middleware.Origin(r) + "/static/avatar.png"}, "languages": []string{},
		"configuration": conf, "registrations": map[string]any{"enabled": true, "approval_required": false, "message": nil},
		"contact": map[string]any{"email": "", "account": nil}, "rules": []struct{}{},
	})
}
