package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// blocksView is the settings page of blocks and mutes.
type blocksView struct {
	Blocked, Muted muffleList
}

// muffleList is a list of blocks or of mutes, with the action (a path
// under the profile) and the label of the button that undoes one.
type muffleList struct {
	List          []retwis.ListedUser
	Action, Label string
}

// listBlocks serves GET /settings/blocks: the accounts the viewer
// blocked and muted, the newest first, each with a button that undoes it.
func (s *Server) listBlocks(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	v := blocksView{Blocked: muffleList{Action: "unblock", Label: "Unblock"}, Muted: muffleList{Action: "unmute", Label: "Unmute"}}
	var err error
	if v.Blocked.List, err = s.store.Blocks(r.Context(), u.ID); err == nil {
		v.Muted.List, err = s.store.Mutes(r.Context(), u.ID)
	}
	if err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "blocks", view{Title: "Blocked and muted", Viewer: &u, Blocks: v})
}
