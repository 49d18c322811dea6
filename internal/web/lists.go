package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/lists"
	"github.com/retwis/retwis/internal/web/page"
	"github.com/retwis/retwis/internal/web/paging"
)

// showLists serves GET /lists, the viewer's lists with the forms that rename, delete and make
// one, and GET /lists/{id}: a page of its timeline, its members, the forms that remove and add one.
func (s *Server) showLists(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	ls, v, tmpl := lists.New(s.Store), page.View{Title: "Lists", Viewer: &u}, "lists"
	lid, _ := retwis.ParseID(r.PathValue("id"))
	read := func(ctx context.Context, c retwis.Cursor, n int) (retwis.Page, error) {
		return ls.Timeline(ctx, u.ID, lid, c, n)
	}
	c, ok := s.PageCursor(w, r, read)
	if !ok {
		return
	}
	var err error
	if r.PathValue("id") == "" {
		v.Lists.All, err = ls.Lists(r.Context(), u.ID)
	} else if v.Lists.List, v.Lists.Members, err = ls.MemberUsers(r.Context(), u.ID, lid); err == nil {
		v.Page, err = read(r.Context(), c, PageSize)
		v.Title, tmpl = v.Lists.List.Title, "list"
		v.Newer, v.Older = paging.Links(r.URL.Path, v.Page)
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.Render(w, r, http.StatusOK, tmpl, v)
}

// changeList serves POST /lists and /lists/{id}: by the form's action, a list titled title
// made, renamed or deleted, username added, user taken out; then the list's page.
func (s *Server) changeList(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	ls, ctx, f := lists.New(s.Store), r.Context(), r.PostFormValue
	lid, _ := retwis.ParseID(r.PathValue("id"))
	var err error
	switch f("action") {
	case "create":
		var l lists.List
		l, err = ls.Create(ctx, u.ID, f("title"), "")
		lid = l.ID
	case "rename":
		_, err = ls.Update(ctx, u.ID, lid, f("title"), "")
	case "delete":
		err, lid = ls.Delete(ctx, u.ID, lid), 0
	case "add":
		var id int64
		if id, err = s.Store.UserID(ctx, f("username")); err == nil {
			err = ls.Add(ctx, u.ID, lid, []int64{id})
			if retwis.ErrorKind(err) == retwis.NotFound {
				err = retwis.Errorf(retwis.Invalid, "A list holds accounts you follow: follow @%s first.", f("username"))
			}
		}
	case "remove":
		id, _ := retwis.ParseID(f("user"))
		err = ls.Remove(ctx, u.ID, lid, []int64{id})
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, strings.TrimSuffix("/lists/"+strconv.FormatInt(lid, 10), "/0"), http.StatusSeeOther) // no list: /lists
}
