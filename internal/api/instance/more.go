package instance

import (
	"cmp"
	"html"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// activityWeeks is how many weeks instance/activity gives, as Mastodon.
const activityWeeks = 12

// rules answers GET /api/v1/instance/rules.
func (s *Server) rules(w http.ResponseWriter, r *http.Request) {
	rules, err := s.Store.Rules(r.Context())
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, rulesOf(rules))
}

// week is a week of Mastodon's instance/activity: its counts as strings.
type week struct {
	Week          string `json:"week"`
	Statuses      string `json:"statuses"`
	Logins        string `json:"logins"`
	Registrations string `json:"registrations"`
}

// activity answers GET /api/v1/instance/activity: the last 12 weeks,
// this one first.
func (s *Server) activity(w http.ResponseWriter, r *http.Request) {
	weeks, err := s.Store.Activity(r.Context(), activityWeeks)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := make([]week, len(weeks))
	for i, wk := range weeks {
		out[i] = week{Week: strconv.FormatInt(wk.Week.Unix(), 10), Statuses: strconv.FormatInt(wk.Statuses, 10),
			Logins: strconv.FormatInt(wk.Logins, 10), Registrations: strconv.FormatInt(wk.Registrations, 10)}
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}

// extendedDescription answers GET /api/v1/instance/extended_description:
// the operator's text (Site.About), as paragraphs of HTML, or the short
// description.
func (s *Server) extendedDescription(w http.ResponseWriter, _ *http.Request) {
	apiwire.WriteJSON(w, http.StatusOK, map[string]string{"updated_at": started.UTC().Format(time.RFC3339), "content": paragraphs(cmp.Or(s.Site.About, description))})
}

// privacyPolicy answers GET /api/v1/instance/privacy_policy: the
// operator's text (Site.PrivacyPolicy), as paragraphs of HTML, or what
// retwis itself keeps and shares (defaultPrivacyPolicy).
func (s *Server) privacyPolicy(w http.ResponseWriter, _ *http.Request) {
	apiwire.WriteJSON(w, http.StatusOK, map[string]string{"updated_at": started.UTC().Format(time.RFC3339), "content": paragraphs(cmp.Or(s.Site.PrivacyPolicy, defaultPrivacyPolicy))})
}

// defaultPrivacyPolicy is what a server that runs retwis keeps, as the
// privacy policy of an operator who wrote none.
const defaultPrivacyPolicy = `This server runs retwis. It keeps what you give it in its database: your username, a hash of your password (never the password itself), your display name and bio, your posts with the earlier versions of those you edited, whom you follow, block and mute, and your favourites, bookmarks, boosts, pins, lists, filters and markers.

To keep your account safe it keeps, for each session and app you logged in with, when it began and the browser or app it came from, and it counts recent logins and requests per network address to hold back abuse; those counts expire on their own.

It keeps no e-mail address and sends no e-mail. It shares nothing with other servers: retwis does not federate.

You can download what it keeps about you from your settings (Export), and deleting your account removes it; your username stays reserved for a while afterwards, so that nobody can pose as you.`

// paragraphs returns text, paragraphs split by blank lines, as HTML.
func paragraphs(text string) string {
	var b strings.Builder
	for p := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(p), "\n", "<br>") + "</p>")
		}
	}
	return b.String()
}

// health answers GET /health, Mastodon's probe for load balancers:
// "OK" while every Redis node answers (as /healthz), else 503.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.Store.Health(r.Context()); err != nil {
		s.MW.LogFailure(r, http.StatusServiceUnavailable, err)
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "Redis is unavailable\n")
		return
	}
	io.WriteString(w, "OK")
}

// started is when this process started: when the description, set by
// a flag, last changed as far as it knows.
var started = time.Now()

// language is an entry of instance/languages.
type lang struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// allLanguages are the ISO 639-1 languages, by code, with their English
// names: what Mastodon's instance/languages lists.
var allLanguages = func() []lang {
	var out []lang
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			code := string([]rune{a, b})
			tag, err := language.Parse(code)
			if err != nil || tag.String() != code { // not a code, or one replaced by another
				continue
			}
			if name := display.English.Languages().Name(tag); name != "" {
				out = append(out, lang{code, name})
			}
		}
	}
	return slices.Clip(out)
}()

// languagesList answers GET /api/v1/instance/languages.
func languagesList(w http.ResponseWriter, _ *http.Request) {
	apiwire.WriteJSON(w, http.StatusOK, allLanguages)
}
