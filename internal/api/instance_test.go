package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/testkit/redistest"
)

// instanceV1Fields are the fields of Mastodon's V1::Instance entity, as
// the documentation lists them (mastodon/documentation,
// content/en/entities/V1_Instance.md), each a path of keys.
var instanceV1Fields = []string{
	"uri", "title", "short_description", "description", "email", "version",
	"urls", "urls.streaming_api",
	"stats", "stats.user_count", "stats.status_count", "stats.domain_count",
	"thumbnail", "languages", "registrations", "approval_required", "invites_enabled",
	"configuration", "configuration.accounts", "configuration.accounts.max_featured_tags",
	"configuration.statuses", "configuration.statuses.max_characters", "configuration.statuses.max_media_attachments",
	"configuration.statuses.characters_reserved_per_url",
	"configuration.media_attachments", "configuration.media_attachments.supported_mime_types",
	"configuration.media_attachments.image_size_limit", "configuration.media_attachments.image_matrix_limit",
	"configuration.media_attachments.video_size_limit", "configuration.media_attachments.video_frame_rate_limit",
	"configuration.media_attachments.video_matrix_limit",
	"configuration.polls", "configuration.polls.max_options", "configuration.polls.max_characters_per_option",
	"configuration.polls.min_expiration", "configuration.polls.max_expiration",
	"contact_account", "rules",
}

// instanceV2Fields are the fields of Mastodon's Instance entity, as
// the documentation lists them (mastodon/documentation,
// content/en/entities/Instance.md), but for those it marks optional
// (thumbnail[blurhash], thumbnail[versions]).
var instanceV2Fields = []string{
	"domain", "title", "version", "source_url", "description", "wrapstodon",
	"usage", "usage.users", "usage.users.active_month",
	"thumbnail", "thumbnail.url", "thumbnail.description", "icon", "languages",
	"configuration", "configuration.urls", "configuration.urls.streaming", "configuration.urls.status",
	"configuration.urls.about", "configuration.urls.privacy_policy", "configuration.urls.terms_of_service",
	"configuration.vapid", "configuration.vapid.public_key",
	"configuration.accounts", "configuration.accounts.max_display_name_length", "configuration.accounts.max_note_length",
	"configuration.accounts.max_avatar_description_length", "configuration.accounts.max_header_description_length",
	"configuration.accounts.max_featured_tags", "configuration.accounts.max_pinned_statuses",
	"configuration.accounts.max_profile_fields", "configuration.accounts.profile_field_name_limit",
	"configuration.accounts.profile_field_value_limit",
	"configuration.statuses", "configuration.statuses.max_characters", "configuration.statuses.max_media_attachments",
	"configuration.statuses.characters_reserved_per_url",
	"configuration.media_attachments", "configuration.media_attachments.supported_mime_types",
	"configuration.media_attachments.description_limit",
	"configuration.media_attachments.image_size_limit", "configuration.media_attachments.image_matrix_limit",
	"configuration.media_attachments.video_size_limit", "configuration.media_attachments.video_frame_rate_limit",
	"configuration.media_attachments.video_matrix_limit",
	"configuration.polls", "configuration.polls.max_options", "configuration.polls.max_characters_per_option",
	"configuration.polls.min_expiration", "configuration.polls.max_expiration",
	"configuration.translation", "configuration.translation.enabled",
	"configuration.timelines_access", "configuration.timelines_access.live_feeds",
	"configuration.timelines_access.live_feeds.local", "configuration.timelines_access.live_feeds.remote",
	"configuration.timelines_access.hashtag_feeds", "configuration.timelines_access.hashtag_feeds.local",
	"configuration.timelines_access.hashtag_feeds.remote", "configuration.timelines_access.trending_link_feeds",
	"configuration.timelines_access.trending_link_feeds.local", "configuration.timelines_access.trending_link_feeds.remote",
	"configuration.limited_federation",
	"registrations", "registrations.enabled", "registrations.approval_required", "registrations.message",
	"registrations.min_age", "registrations.reason_required", "registrations.url",
	"api_versions", "api_versions.mastodon",
	"contact", "contact.email", "contact.account", "rules",
}

// fieldPaths returns the paths of the keys of a JSON object, nested
// objects' included.
func fieldPaths(prefix string, v map[string]any) []string {
	var out []string
	for k, child := range v {
		out = append(out, prefix+k)
		if m, ok := child.(map[string]any); ok {
			out = append(out, fieldPaths(prefix+k+".", m)...)
		}
	}
	return out
}

// TestInstanceEntitiesComplete: both instance entities have every field
// the documentation lists, and nothing it does not (but max_toot_chars,
// which older apps read, and the keys of api_versions), so that apps
// that decode them strictly (Ice Cubes) read them; the rules the
// operator set are in both.
func TestInstanceEntitiesComplete(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	if _, err := s.Store.AddRule(t.Context(), "Be kind", "To everyone."); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		want  []string
		extra []string
	}{
		{"/api/v1/instance", instanceV1Fields, []string{"max_toot_chars"}},
		{"/api/v2/instance", instanceV2Fields, nil},
	} {
		var got map[string]any
		r := s.Call(http.MethodGet, c.path, "", nil)
		if r.Decode(t, &got); r.Status != http.StatusOK {
			t.Fatalf("%s: %d", c.path, r.Status)
		}
		have := fieldPaths("", got)
		for _, f := range c.want {
			if !slices.Contains(have, f) {
				t.Errorf("%s lacks %s", c.path, f)
			}
		}
		for _, f := range have {
			if !slices.Contains(c.want, f) && !slices.Contains(c.extra, f) {
				t.Errorf("%s has %s, which the documentation does not list", c.path, f)
			}
		}
		var rules struct {
			Rules []struct{ ID, Text, Hint string }
		}
		if r.Decode(t, &rules); len(rules.Rules) != 1 || rules.Rules[0].Text != "Be kind" || rules.Rules[0].Hint != "To everyone." {
			t.Errorf("%s: rules = %+v; want the one set", c.path, rules.Rules)
		}
	}
	var v2 struct {
		Configuration struct {
			Statuses map[string]int
			Accounts map[string]int
		}
		Registrations struct{ URL string }
		APIVersions   map[string]int `json:"api_versions"`
	}
	s.Call(http.MethodGet, "/api/v2/instance", "", nil).Decode(t, &v2)
	if st := v2.Configuration.Statuses; st["max_characters"] != 500 || st["characters_reserved_per_url"] != 23 || st["max_media_attachments"] != 4 ||
		v2.Configuration.Accounts["max_pinned_statuses"] != 5 || v2.Registrations.URL != s.URL+"/" {
		t.Errorf("v2 = %+v; want 500 characters, 23 a link, 4 pictures, 5 pins, sign-up at /", v2)
	}
}

// TestInstanceGoMastodon: go-mastodon reads the instance, its activity
// (this week's post, login and sign-up counted) and its peers (none);
// the rules, the extended description, the languages and the empty
// lists answer as Mastodon's.
func TestInstanceGoMastodon(t *testing.T) {
	t.Parallel()
	s := newServerWith(t, redistest.Start(t).URL, api.Options{Site: apiwire.Site{Contact: "admin@example.com", About: "Hello.\n\nBe <nice>."}}, nil)
	alice := client(t, s, "alice") // a sign-up and a login
	if _, err := alice.PostStatus(t.Context(), &mastodon.Toot{Status: "hello"}); err != nil {
		t.Fatal(err)
	}
	inst, err := alice.GetInstance(t.Context())
	if err != nil || inst.Stats == nil || inst.Stats.UserCount != 1 || inst.Stats.StatusCount != 1 || inst.EMail != "admin@example.com" {
		t.Errorf("instance = %+v, %v; want 1 user, 1 post, the contact", inst, err)
	}
	weeks, err := alice.GetInstanceActivity(t.Context())
	if err != nil || len(weeks) != 12 {
		t.Fatalf("activity = %v, %v; want 12 weeks", weeks, err)
	}
	if w := weeks[0]; w.Statuses != 1 || w.Logins != 1 || w.Registrations != 1 || time.Since(time.Time(w.Week)) > 7*24*time.Hour {
		t.Errorf("this week = %+v; want 1 post, 1 login, 1 sign-up", *w)
	}
	if peers, err := alice.GetInstancePeers(t.Context()); err != nil || peers == nil || len(peers) != 0 {
		t.Errorf("peers = %v, %v; want []", peers, err)
	}
	var about struct {
		UpdatedAt string `json:"updated_at"`
		Content   string
	}
	if s.Call(http.MethodGet, "/api/v1/instance/extended_description", "", nil).Decode(t, &about); about.Content != "<p>Hello.</p><p>Be &lt;nice&gt;.</p>" || about.UpdatedAt == "" {
		t.Errorf("extended description = %+v", about)
	}
	if s.Call(http.MethodGet, "/api/v1/instance/privacy_policy", "", nil).Decode(t, &about); !strings.HasPrefix(about.Content, "<p>This server runs retwis.") || about.UpdatedAt == "" {
		t.Errorf("the default privacy policy = %+v", about)
	}
	if r := s.Call(http.MethodGet, "/health", "", nil); r.Status != http.StatusOK || string(r.Body) != "OK" {
		t.Errorf("/health: %d %q; want OK", r.Status, r.Body)
	}
	var langs []struct{ Code, Name string }
	if s.Call(http.MethodGet, "/api/v1/instance/languages", "", nil).Decode(t, &langs); len(langs) < 180 ||
		!slices.Contains(langs, struct{ Code, Name string }{"fr", "French"}) {
		t.Errorf("languages: %d, without fr French", len(langs))
	}
	for path, want := range map[string]string{"/api/v1/instance/domain_blocks": "[]", "/api/v1/instance/translation_languages": "{}", "/api/v1/instance/rules": "[]"} {
		if r := s.Call(http.MethodGet, path, "", nil); r.Status != http.StatusOK || strings.TrimSpace(string(r.Body)) != want {
			t.Errorf("%s: %d %s; want %s", path, r.Status, r.Body, want)
		}
	}
}

// TestNodeinfo: /.well-known/nodeinfo links to 2.0 and 2.1, each says
// retwis with no protocols, its users and posts, and names mastodon as
// its upstream, which is how megalodon tells the API it speaks.
func TestNodeinfo(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	client(t, s, "alice")
	var links struct{ Links []struct{ Rel, Href string } }
	s.Call(http.MethodGet, "/.well-known/nodeinfo", "", nil).Decode(t, &links)
	if len(links.Links) != 2 {
		t.Fatalf("links = %+v; want 2.0 and 2.1", links)
	}
	for i, v := range []string{"2.0", "2.1"} {
		l := links.Links[i]
		if l.Rel != "http://nodeinfo.diaspora.software/ns/schema/"+v || l.Href != s.URL+"/nodeinfo/"+v {
			t.Errorf("link %d = %+v", i, l)
		}
		var ni struct {
			Version   string
			Software  struct{ Name, Version string }
			Protocols []string
			Usage     struct {
				Users      struct{ Total, ActiveMonth, ActiveHalfyear int }
				LocalPosts int
			}
			OpenRegistrations bool
			Metadata          struct{ Upstream struct{ Name string } }
		}
		s.Call(http.MethodGet, "/nodeinfo/"+v, "", nil).Decode(t, &ni)
		if ni.Version != v || ni.Software.Name != "retwis" || ni.Protocols == nil || len(ni.Protocols) != 0 ||
			ni.Usage.Users.Total != 1 || ni.Usage.Users.ActiveMonth != 1 || ni.Usage.Users.ActiveHalfyear != 1 ||
			!ni.OpenRegistrations || ni.Metadata.Upstream.Name != "mastodon" {
			t.Errorf("nodeinfo %s = %+v", v, ni)
		}
	}
	if r := s.Call(http.MethodGet, "/nodeinfo/1.0", "", nil); r.Status != http.StatusNotFound {
		t.Errorf("nodeinfo 1.0: %d; want 404", r.Status)
	}
}
