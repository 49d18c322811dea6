package web

import (
	"net/http"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// listBlocks serves GET /settings/blocks: the accounts the viewer
// blocked and muted, the newest first, each with a button that undoes it.
func (s *Server) listBlocks(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	v := page.BlocksView{Blocked: page.MuffleList{Action: "unblock", Label: "Unblock"}, Muted: page.MuffleList{Action: "unmute", Label: "Unmute"}}
	var err error
	if v.Blocked.List, err = s.Store.Blocks(r.Context(), u.ID); err == nil {
		v.Muted.List, err = s.Store.Mutes(r.Context(), u.ID)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, http.StatusOK, "blocks", page.View{Title: "Blocked and muted", Viewer: &u, Blocks: v})
}
