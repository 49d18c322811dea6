// Package filterform is what the Filters settings page of internal/web
// does with its forms: each form's op carried out on the user's filters
// (Do), and the fields of a filter's form (Fields). The page's handlers
// and template are internal/web's (settings_filters.go, filters.html).
package filterform

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/filters"
)

// Do carries out the op of form, a form of the page, on uid's filters
// in fs: create (title, context (repeated), action, keywords,
// comma-separated, whole_word, expires_in, seconds), update (id, title,
// context, action), delete (id), keyword (adds keyword, whole_word, to
// the filter id), unkeyword (removes the keyword id). Its error is of
// kind Invalid for a form that asks for what the rules refuse.
func Do(ctx context.Context, fs *filters.Store, uid int64, f url.Values) error {
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
		_, err = fs.Create(ctx, uid, d)
	case "update":
		_, err = fs.Update(ctx, uid, id, d)
	case "delete":
		err = fs.Delete(ctx, uid, id)
	case "keyword":
		_, err = fs.AddKeyword(ctx, uid, id, f.Get("keyword"), whole)
	case "unkeyword":
		err = fs.DeleteKeyword(ctx, uid, id)
	default:
		err = retwis.Errorf(retwis.Invalid, "The form asks for nothing known.")
	}
	return err
}

// Fields is what the form of a filter's fields shows: the filter (nil
// for a new one) and the contexts to choose from.
type Fields struct {
	Filter   *filters.Filter
	Contexts []string
}

// NewFields returns the fields of f (a filters.Filter, or nil for a new
// one), for the page's template.
func NewFields(f any) Fields {
	ff := Fields{Contexts: filters.Contexts}
	if flt, ok := f.(filters.Filter); ok {
		ff.Filter = &flt
	}
	return ff
}

// Checked reports whether the form's box of context c is checked: the
// filter's contexts, or home for a new one.
func (ff Fields) Checked(c string) bool {
	if ff.Filter == nil {
		return c == filters.Home
	}
	return ff.Filter.AppliesIn(c)
}
