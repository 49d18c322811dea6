package filters

import (
	"net/url"
	"strconv"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/store/filters"
)

// maxExpiresIn bounds expires_in (seconds): about a hundred years.
const maxExpiresIn = 100 * 365 * 24 * 3600

// draftOf reads the parameters of a filter's creation or change: title,
// context[], filter_action, expires_in ("" for never), and
// keywords_attributes (see keywordEdits); those absent are left nil.
func draftOf(v url.Values) (filters.Draft, error) {
	var d filters.Draft
	if _, ok := v["title"]; ok {
		d.Title = ptr(v.Get("title"))
	}
	if c := apiwire.List(v, "context"); len(c) > 0 {
		d.Context = c
	}
	if _, ok := v["filter_action"]; ok {
		d.Action = ptr(v.Get("filter_action"))
	}
	if raw, ok := v["expires_in"]; ok {
		at, err := expiresAt(raw[0])
		if err != nil {
			return d, err
		}
		d.Expires = &at
	}
	edits, err := keywordEdits(v)
	d.Keywords = edits
	return d, err
}

// expiresAt is when a filter of expires_in raw expires: never for "".
func expiresAt(raw string) (time.Time, error) {
	if raw == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n <= 0 || n > maxExpiresIn {
		return time.Time{}, retwis.Errorf(retwis.Invalid, "expires_in must be a number of seconds")
	}
	return time.Now().Add(time.Duration(n) * time.Second), nil
}

// keywordEdits reads keywords_attributes (apiwire.Attributes).
func keywordEdits(v url.Values) ([]filters.KeywordEdit, error) {
	objs := apiwire.Attributes(v, "keywords_attributes", "keyword", "whole_word", "id", "_destroy")
	edits := make([]filters.KeywordEdit, 0, len(objs))
	for _, fields := range objs {
		e, err := keywordEdit(fields)
		if err != nil {
			return nil, err
		}
		edits = append(edits, e)
	}
	return edits, nil
}

// keywordEdit is the edit of one keyword's attributes.
func keywordEdit(fields map[string]string) (filters.KeywordEdit, error) {
	var e filters.KeywordEdit
	if raw, ok := fields["id"]; ok {
		id, valid := retwis.ParseID(raw)
		if !valid {
			return e, retwis.Errorf(retwis.Invalid, "keywords_attributes: %q is not the id of a keyword", raw)
		}
		e.ID = id
	}
	if kw, ok := fields["keyword"]; ok {
		e.Keyword = &kw
	}
	if raw, ok := fields["whole_word"]; ok {
		e.WholeWord = ptr(flag(raw))
	}
	e.Destroy = flag(fields["_destroy"])
	return e, nil
}

// flag reads a boolean as Rails does.
func flag(raw string) bool { return apiwire.Flag(url.Values{"f": {raw}}, "f") }

func ptr[T any](v T) *T { return &v }
