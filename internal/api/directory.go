package api

import (
	"net/http"
	"strconv"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// directory answers GET /api/v1/directory: the accounts of the server
// (all local: local is accepted and changes nothing), by order: active
// (the default, those who posted most recently first) or new (the
// newest sign-ups first); offset and limit (40, at most 80) page it.
func (s *Server) directory(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	limit, err := apiwire.ReadLimit(v, apiwire.MaxLimit, 2*apiwire.MaxLimit)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	offset := 0
	if raw := v.Get("offset"); raw != "" {
		if offset, err = strconv.Atoi(raw); err != nil || offset < 0 {
			s.Fail(w, r, retwis.Errorf(retwis.Invalid, "offset must be a number, 0 or more."))
			return
		}
	}
	order := v.Get("order")
	if order != "" && order != "active" && order != "new" {
		s.Fail(w, r, retwis.Errorf(retwis.Invalid, "order must be active or new."))
		return
	}
	uids, err := s.Store.Directory(r.Context(), order == "new", offset, limit)
	var out []entity.Account
	if err == nil {
		out, err = s.Accounts(r.Context(), entity.SiteOf(r), uids)
	}
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, out)
}
