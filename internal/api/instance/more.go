package instance

import (
	"html"
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
	text := s.Site.About
	if text == "" {
		text = description
	}
	var b strings.Builder
	for p := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			b.WriteString("<p>" + strings.ReplaceAll(html.EscapeString(p), "\n", "<br>") + "</p>")
		}
	}
	apiwire.WriteJSON(w, http.StatusOK, map[string]string{"updated_at": started.UTC().Format(time.RFC3339), "content": b.String()})
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
