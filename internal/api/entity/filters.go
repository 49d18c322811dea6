package entity

import (
	"context"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/filters"
)

// Filter is Mastodon's Filter (filters v2).
type Filter struct {
	ID           string          `json:"id"`
	Title        string          `json:"title"`
	Context      []string        `json:"context"`
	ExpiresAt    *string         `json:"expires_at"`
	FilterAction string          `json:"filter_action"`
	Keywords     []FilterKeyword `json:"keywords"`
	Statuses     []FilterStatus  `json:"statuses"`
}

// FilterKeyword is Mastodon's FilterKeyword.
type FilterKeyword struct {
	ID        string `json:"id"`
	Keyword   string `json:"keyword"`
	WholeWord bool   `json:"whole_word"`
}

// FilterStatus is Mastodon's FilterStatus.
type FilterStatus struct {
	ID       string `json:"id"`
	StatusID string `json:"status_id"`
}

// FilterResult is Mastodon's FilterResult: a filter that matched a
// status, and what of it matched.
type FilterResult struct {
	Filter         Filter   `json:"filter"`
	KeywordMatches []string `json:"keyword_matches"`
	StatusMatches  []string `json:"status_matches"`
}

// V1Filter is Mastodon's V1::Filter: one keyword of a filter, as
// Mastodon maps filters v2 to v1 (its id the keyword's).
type V1Filter struct {
	ID           string   `json:"id"`
	Phrase       string   `json:"phrase"`
	Context      []string `json:"context"`
	WholeWord    bool     `json:"whole_word"`
	ExpiresAt    *string  `json:"expires_at"`
	Irreversible bool     `json:"irreversible"`
}

// FilterOf returns the entity of f.
func FilterOf(f filters.Filter) Filter {
	e := Filter{ID: ID(f.ID), Title: f.Title, Context: f.Context, ExpiresAt: expiry(f.ExpiresAt), FilterAction: f.Action,
		Keywords: make([]FilterKeyword, 0, len(f.Keywords)), Statuses: make([]FilterStatus, 0, len(f.Statuses))}
	for _, k := range f.Keywords {
		e.Keywords = append(e.Keywords, KeywordOf(k))
	}
	for _, r := range f.Statuses {
		e.Statuses = append(e.Statuses, StatusRefOf(r))
	}
	return e
}

// KeywordOf returns the entity of k.
func KeywordOf(k filters.Keyword) FilterKeyword {
	return FilterKeyword{ID: ID(k.ID), Keyword: k.Keyword, WholeWord: k.WholeWord}
}

// StatusRefOf returns the entity of r.
func StatusRefOf(r filters.StatusRef) FilterStatus {
	return FilterStatus{ID: ID(r.ID), StatusID: ID(r.PostID)}
}

// V1FilterOf returns the v1 entity of f's keyword k.
func V1FilterOf(f filters.Filter, k filters.Keyword) V1Filter {
	return V1Filter{ID: ID(k.ID), Phrase: k.Keyword, Context: f.Context, WholeWord: k.WholeWord,
		ExpiresAt: expiry(f.ExpiresAt), Irreversible: f.Action == filters.Hide}
}

// expiry is the expires_at of a filter: null for none.
func expiry(at time.Time) *string {
	if at.IsZero() {
		return nil
	}
	s := Stamp(at)
	return &s
}

// resultsOf returns the FilterResults of matches.
func resultsOf(matches []filters.Match) []FilterResult {
	out := make([]FilterResult, 0, len(matches))
	for _, m := range matches {
		r := FilterResult{Filter: FilterOf(m.Filter), KeywordMatches: m.Keywords, StatusMatches: make([]string, 0, len(m.Statuses))}
		if r.KeywordMatches == nil {
			r.KeywordMatches = []string{}
		}
		for _, id := range m.Statuses {
			r.StatusMatches = append(r.StatusMatches, ID(id))
		}
		out = append(out, r)
	}
	return out
}

// Filtered returns the statuses of posts read in context (filters.Home,
// filters.Public…), the viewer's filters of that context applied (by
// filters.Apply): a post a hide filter matches is left out, one a warn
// filter matches carries the matches in its filtered. No context (""),
// or no Filters, and it is Statuses.
func (b Builder) Filtered(ctx context.Context, st Site, context string, posts []retwis.Post) ([]Status, error) {
	if context == "" || b.Filters == nil {
		return b.Statuses(ctx, st, posts)
	}
	viewer, _ := middleware.ViewerFrom(ctx)
	applied, err := b.Filters.Apply(ctx, viewer, context, posts)
	if err != nil {
		return nil, err
	}
	out, err := b.Statuses(ctx, st, applied.Posts)
	if err != nil || len(applied.Matches) == 0 {
		return out, err
	}
	for i := range out {
		pid, _ := retwis.ParseID(out[i].ID)
		if matches, ok := applied.Matches[pid]; ok {
			out[i].Filtered = resultsOf(matches)
		}
	}
	return out, nil
}
