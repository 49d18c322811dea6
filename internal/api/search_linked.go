package api

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	"github.com/retwis/retwis/internal/middleware"
)

// link is what a search's q names on this server when it is a link or
// an address rather than words: a post (by id) or an account (by
// username).
type link struct {
	post     int64
	username string
}

// linked reads q as a link to a post or a profile of this server
// (/p/<id>, /u/<name>, and Mastodon's /@<name>/<id> and /@<name>, the
// forms apps are given) or as an address, name@host or @name@host, of
// this server's host. isLink is false for anything else, words to
// search for; a link or an address of another host is one, of nothing
// here (the zero link): retwis does not federate, so it fetches nothing.
func linked(r *http.Request, q string) (l link, isLink bool) {
	host := middleware.Host(r)
	if name, at, ok := strings.Cut(strings.TrimPrefix(q, "@"), "@"); ok && !strings.Contains(q, "://") {
		if strings.EqualFold(at, host) && retwis.IsUsernameShaped(name) {
			l.username = name
		}
		return l, true
	}
	u, err := url.Parse(q)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return link{}, false
	}
	if !strings.EqualFold(u.Host, host) {
		return link{}, true
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) == 2 && (parts[0] == "p" || strings.HasPrefix(parts[0], "@")):
		l.post, _ = retwis.ParseID(parts[1])
	case len(parts) == 2 && parts[0] == "u":
		l.username = parts[1]
	case len(parts) == 1 && strings.HasPrefix(parts[0], "@"):
		l.username = strings.TrimPrefix(parts[0], "@")
	}
	if !retwis.IsUsernameShaped(l.username) {
		l.username = ""
	}
	return l, true
}

// findLinked adds to out the post or the account l names, if the viewer
// sees it and type (typ) asks for it: the post only if it is author's
// (when author is not 0). Nothing found (the zero link, a post gone or
// hidden, an account gone or suspended) is no error.
func (s *Server) findLinked(r *http.Request, st entity.Site, l link, typ string, author int64, out *searchResults) error {
	ctx, viewer := r.Context(), apiwire.Viewer(r).ID
	if l == (link{}) {
		return nil
	}
	if l.post != 0 {
		if typ != "" && typ != "statuses" {
			return nil
		}
		p, err := s.Store.Post(ctx, viewer, l.post)
		if retwis.ErrorKind(err) == retwis.NotFound || err == nil && author != 0 && p.AuthorID != author {
			return nil
		}
		if err == nil {
			out.Statuses, err = s.Statuses(ctx, st, []retwis.Post{p})
		}
		return err
	}
	if typ != "" && typ != "accounts" {
		return nil
	}
	u, err := s.Store.UserByName(ctx, l.username)
	if err == nil {
		err = s.Store.Shown(ctx, viewer, u.ID)
	}
	if retwis.ErrorKind(err) == retwis.NotFound {
		return nil
	}
	if err == nil {
		out.Accounts, err = s.Accounts(ctx, st, []int64{u.ID})
	}
	return err
}
