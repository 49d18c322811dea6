package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/filters"
)

// filtersView is the settings page of filters: the viewer's, and the
// contexts a filter may apply in.
type filtersView struct {
	List     []filters.Filter
	Contexts []string
}

// listFilters serves GET /settings/filters: the viewer's filters, each
// with its forms, and the form of a new one.
func (s *Server) listFilters(w http.ResponseWriter, r *http.Request) {
	s.showFilters(w, r, http.StatusOK, nil)
}

// showFilters renders the filters page with status, and err's message.
func (s *Server) showFilters(w http.ResponseWriter, r *http.Request, status int, err error) {
	u, _ := middleware.ViewerFrom(r.Context())
	list, lerr := s.filters.List(r.Context(), u.ID)
	if lerr != nil {
		s.mw.Fail(w, r, lerr)
		return
	}
	v := view{Title: "Filters", Viewer: &u, Filters: filtersView{List: list, Contexts: filters.Contexts}}
	if err != nil {
		v.Error = retwis.ErrorMessage(err)
	}
	s.render(w, r, status, "filters", v)
}

// editFilters serves POST /settings/filters: the form's op, on the
// filter (or keyword) id: create, update, delete, keyword (adds one),
// unkeyword (removes keyword id).
func (s *Server) editFilters(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := parseForm(w, r)
	if err == nil {
		err = s.filterOp(r, u.ID)
	}
	if err != nil {
		if status, ok := s.formRefused(w, r, status, err); ok {
			s.showFilters(w, r, status, err)
		}
		return
	}
	http.Redirect(w, r, "/settings/filters", http.StatusSeeOther)
}

// filterOp carries out the op of a filters form of uid's.
func (s *Server) filterOp(r *http.Request, uid int64) error {
	f, ctx := r.PostForm, r.Context()
	id, _ := strconv.ParseInt(f.Get("id"), 10, 64)
	title, action := f.Get("title"), f.Get("action")
	d := filters.Draft{Title: &title, Action: &action, Context: f["context"]}
	whole := f.Get("whole_word") != ""
	var err error
	switch f.Get("op") {
	case "create":
		if secs, _ := strconv.Atoi(f.Get("expires_in")); secs > 0 {
			at := time.Now().Add(time.Duration(secs) * time.Second)
			d.Expires = &at
		}
		for kw := range strings.SplitSeq(f.Get("keywords"), ",") {
			if kw = strings.TrimSpace(kw); kw != "" {
				d.Keywords = append(d.Keywords, filters.KeywordEdit{Keyword: &kw, WholeWord: &whole})
			}
		}
		_, err = s.filters.Create(ctx, uid, d)
	case "update":
		_, err = s.filters.Update(ctx, uid, id, d)
	case "delete":
		err = s.filters.Delete(ctx, uid, id)
	case "keyword":
		_, err = s.filters.AddKeyword(ctx, uid, id, f.Get("keyword"), whole)
	case "unkeyword":
		err = s.filters.DeleteKeyword(ctx, uid, id)
	default:
		err = retwis.Errorf(retwis.Invalid, "The form asks for nothing known.")
	}
	return err
}

// filterFields is what the form of a filter's fields shows: the filter
// (nil for a new one) and the contexts to choose from.
type filterFields struct {
	Filter   *filters.Filter
	Contexts []string
}

// newFilterFields returns the fields of f (a filters.Filter, or nil for
// a new one), for the template's "filterForm".
func newFilterFields(f any, contexts []string) filterFields {
	ff := filterFields{Contexts: contexts}
	if flt, ok := f.(filters.Filter); ok {
		ff.Filter = &flt
	}
	return ff
}

// Checked reports whether the form's box of context c is checked: the
// filter's contexts, or home for a new one.
func (ff filterFields) Checked(c string) bool {
	if ff.Filter == nil {
		return c == filters.Home
	}
	return ff.Filter.AppliesIn(c)
}
