package api

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/retwis/retwis"
)

// maxReportedStatuses bounds the statuses one report names.
const maxReportedStatuses = 5

// report is Mastodon's Report.
type report struct {
	ID            string     `json:"id"`
	ActionTaken   bool       `json:"action_taken"`
	ActionTakenAt *time.Time `json:"action_taken_at"`
	Category      string     `json:"category"`
	Comment       string     `json:"comment"`
	Forwarded     bool       `json:"forwarded"`
	CreatedAt     time.Time  `json:"created_at"`
	StatusIDs     []string   `json:"status_ids"`
	RuleIDs       []string   `json:"rule_ids"`
	TargetAccount account    `json:"target_account"`
}

// createReport answers POST /api/v1/reports (account_id, status_ids[],
// comment, category): a report to the moderators of the account, or of
// each of its statuses named (at most 5), filed as one report each; a
// report without a comment says its category. forward and rule_ids are
// read and not used.
func (s *Server) createReport(w http.ResponseWriter, r *http.Request) {
	v, err := params(r)
	if err != nil {
		badRequest(w, r, err)
		return
	}
	uid, ok := idParam(v.Get("account_id"))
	if !ok {
		renderError(w, r, http.StatusUnprocessableEntity, "account_id must be the id of an account.")
		return
	}
	pids, err := idList(v, "status_ids")
	if err == nil && len(pids) > maxReportedStatuses {
		err = retwis.Errorf(retwis.Invalid, "A report names at most %d statuses.", maxReportedStatuses)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	category, comment := v.Get("category"), v.Get("comment")
	if category == "" {
		category = "other"
	}
	reason := comment
	if reason == "" {
		reason = "(" + category + ", no comment)"
	}
	sum, err := s.store.Summary(r.Context(), uid)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	posts, err := s.store.Posts(r.Context(), viewer(r).ID, pids)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, pid := range pids { // every status checked before anything is filed
		if !slices.ContainsFunc(posts, func(p retwis.Post) bool { return p.ID == pid && p.AuthorID == uid }) {
			renderError(w, r, http.StatusUnprocessableEntity, fmt.Sprintf("Status %d is not a status of account %d.", pid, uid))
			return
		}
	}
	targets := pids
	if len(targets) == 0 {
		targets = []int64{0} // the account itself
	}
	out := report{Category: category, Comment: comment, StatusIDs: []string{}, TargetAccount: newSite(r).account(sum)}
	for _, pid := range targets {
		rep, err := s.store.Report(r.Context(), viewer(r).ID, uid, pid, reason)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if out.ID == "" {
			out.ID, out.CreatedAt = rep.ID, rep.At.UTC()
		}
		if pid != 0 {
			out.StatusIDs = append(out.StatusIDs, id(pid))
		}
	}
	writeJSON(w, http.StatusOK, out)
}
