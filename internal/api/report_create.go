package api

import (
	"cmp"
	"net/http"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// report is Mastodon's Report.
type report struct {
	ID            string         `json:"id"`
	ActionTaken   bool           `json:"action_taken"`
	ActionTakenAt *time.Time     `json:"action_taken_at"`
	Category      string         `json:"category"`
	Comment       string         `json:"comment"`
	Forwarded     bool           `json:"forwarded"`
	CreatedAt     time.Time      `json:"created_at"`
	StatusIDs     []string       `json:"status_ids"`
	RuleIDs       []string       `json:"rule_ids"`
	TargetAccount entity.Account `json:"target_account"`
}

// createReport answers POST /api/v1/reports (account_id, status_ids[],
// comment, category): one report to the moderators of the account and
// of the statuses named, filed whole or not at all by store.Report,
// which holds the rules (at most retwis.MaxReportedPosts statuses, each
// the account's; a reason); a report without a comment says its
// category. forward and rule_ids are read and not used.
func (s *Server) createReport(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	uid, ok := retwis.ParseID(v.Get("account_id"))
	if !ok {
		apiwire.RenderError(w, r, http.StatusUnprocessableEntity, "account_id must be the id of an account.")
		return
	}
	pids, err := apiwire.IDs(v, "status_ids")
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	category, comment := cmp.Or(v.Get("category"), "other"), v.Get("comment")
	sum, err := s.Store.Summary(r.Context(), uid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	rep, err := s.Store.Report(r.Context(), apiwire.Viewer(r).ID, uid, pids, cmp.Or(comment, "("+category+", no comment)"))
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	out := report{ID: rep.ID, Category: category, Comment: comment, CreatedAt: rep.At.UTC(),
		StatusIDs: make([]string, len(rep.Posts)), TargetAccount: entity.SiteOf(r).Account(sum)}
	for i, pid := range rep.Posts {
		out.StatusIDs[i] = entity.ID(pid)
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
