package web

import "net/http"

// block serves POST /u/{username}/block.
func (s *Server) block(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Block)
}

// unblock serves POST /u/{username}/unblock.
func (s *Server) unblock(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Unblock)
}

// mute serves POST /u/{username}/mute.
func (s *Server) mute(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Mute)
}

// unmute serves POST /u/{username}/unmute.
func (s *Server) unmute(w http.ResponseWriter, r *http.Request) {
	s.changeRelation(w, r, s.Store.Unmute)
}
