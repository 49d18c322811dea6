package api

import (
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/store/interact"
)

// policySummary is the summary of a NotificationPolicy: retwis keeps no
// filtered notifications aside, so none is pending.
type policySummary struct {
	PendingRequests      int `json:"pending_requests_count"`
	PendingNotifications int `json:"pending_notifications_count"`
}

// notificationPolicy answers GET and PATCH /api/v2/notifications/policy
// (v2 true) and /api/v1/notifications/policy: the viewer's notification
// policy, changed first by the parameters of a PATCH. Version 2 names
// each field for_<whom> and gives it accept, filter or drop; version 1
// (Mastodon 4.3's first) names it filter_<whom>, true unless accept, and
// takes a boolean (true: filter).
func (s *Server) notificationPolicy(v2 bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		change := map[string]string{}
		if r.Method == http.MethodPatch {
			v, err := apiwire.Params(r)
			if err != nil {
				apiwire.BadRequest(w, r, err)
				return
			}
			if change, err = policyChange(v, v2); err != nil {
				s.Fail(w, r, err)
				return
			}
		}
		policy, err := s.Store.SetNotificationPolicy(r.Context(), apiwire.Viewer(r).ID, change)
		if err != nil {
			s.Fail(w, r, err)
			return
		}
		out := map[string]any{"summary": policySummary{}}
		for field, treatment := range policy {
			if v2 {
				out[field] = treatment
			} else if f, ok := strings.CutPrefix(field, "for_"); ok && f != "limited_accounts" { // not in version 1
				out["filter_"+f] = treatment != interact.PolicyAccept
			}
		}
		apiwire.WriteJSON(w, http.StatusOK, out)
	}
}

// policyChange reads the change of a PATCH of the notification policy
// from its parameters: in version 2, for_<whom> as they are; in
// version 1, filter_<whom> as booleans.
func policyChange(v map[string][]string, v2 bool) (map[string]string, error) {
	change := map[string]string{}
	for name, values := range v {
		if len(values) != 1 {
			return nil, retwis.Errorf(retwis.Invalid, "%s takes one value.", name)
		}
		if whom, ok := strings.CutPrefix(name, "for_"); ok && v2 {
			change["for_"+whom] = values[0]
		} else if whom, ok := strings.CutPrefix(name, "filter_"); ok && !v2 {
			change["for_"+whom] = interact.PolicyAccept
			if apiwire.Flag(v, name) {
				change["for_"+whom] = interact.PolicyFilter
			}
		}
	}
	return change, nil
}
