package filters

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// Draft is a filter to create or the fields of one to change: in a
// change, a nil field is left as it is.
type Draft struct {
	Title   *string
	Context []string
	Action  *string
	// Expires sets the expiry (nil: unchanged; a pointer to zero: never).
	Expires *time.Time
	// Keywords are keywords to add (ID 0), change or, Destroy, remove.
	Keywords []KeywordEdit
}

// KeywordEdit is a keyword to add (ID 0), change (its ID) or remove
// (Destroy).
type KeywordEdit struct {
	ID        int64
	Keyword   *string
	WholeWord *bool
	Destroy   bool
}

// writeTries is how often a write is tried when another write of the
// same user's filters came between its read and its write, each after a
// random pause of up to a millisecond more than the one before.
const writeTries = 10

// Create adds a filter to uid's, and returns it.
func (s *Store) Create(ctx context.Context, uid int64, d Draft) (Filter, error) {
	if d.Title == nil || d.Context == nil {
		return Filter{}, retwis.Errorf(retwis.Invalid, "A filter needs a title and a context.")
	}
	var made Filter
	err := s.change(ctx, uid, func(doc *doc, now time.Time) error {
		f := Filter{ID: doc.next(), Action: Warn}
		if err := d.apply(doc, &f, now); err != nil {
			return err
		}
		if len(doc.Filters) >= MaxFilters {
			return retwis.Errorf(retwis.Invalid, "At most %d filters.", MaxFilters)
		}
		doc.Filters = append(doc.Filters, f)
		made = f
		return nil
	})
	return made, err
}

// Update changes uid's filter id as d says, and returns it.
func (s *Store) Update(ctx context.Context, uid, id int64, d Draft) (Filter, error) {
	var changed Filter
	err := s.change(ctx, uid, func(doc *doc, now time.Time) error {
		f, err := doc.filter(id)
		if err != nil {
			return err
		}
		if err := d.apply(doc, f, now); err != nil {
			return err
		}
		changed = *f
		return nil
	})
	return changed, err
}

// Delete removes uid's filter id.
func (s *Store) Delete(ctx context.Context, uid, id int64) error {
	return s.change(ctx, uid, func(doc *doc, _ time.Time) error {
		n := len(doc.Filters)
		doc.Filters = slices.DeleteFunc(doc.Filters, func(f Filter) bool { return f.ID == id })
		if len(doc.Filters) == n {
			return notFound("filter")
		}
		return nil
	})
}

// AddKeyword adds a keyword to uid's filter id, and returns it.
func (s *Store) AddKeyword(ctx context.Context, uid, id int64, keyword string, wholeWord bool) (Keyword, error) {
	var made Keyword
	err := s.change(ctx, uid, func(doc *doc, now time.Time) error {
		f, err := doc.filter(id)
		if err != nil {
			return err
		}
		if err := (Draft{Keywords: []KeywordEdit{{Keyword: &keyword, WholeWord: &wholeWord}}}).apply(doc, f, now); err != nil {
			return err
		}
		made = f.Keywords[len(f.Keywords)-1]
		return nil
	})
	return made, err
}

// UpdateKeyword changes uid's keyword id (nil fields unchanged), and
// returns it.
func (s *Store) UpdateKeyword(ctx context.Context, uid, id int64, keyword *string, wholeWord *bool) (Keyword, error) {
	var changed Keyword
	err := s.change(ctx, uid, func(doc *doc, now time.Time) error {
		f, err := doc.filterOfKeyword(id)
		if err != nil {
			return err
		}
		if err := (Draft{Keywords: []KeywordEdit{{ID: id, Keyword: keyword, WholeWord: wholeWord}}}).apply(doc, f, now); err != nil {
			return err
		}
		changed = f.Keywords[slices.IndexFunc(f.Keywords, func(k Keyword) bool { return k.ID == id })]
		return nil
	})
	return changed, err
}

// DeleteKeyword removes uid's keyword id from its filter.
func (s *Store) DeleteKeyword(ctx context.Context, uid, id int64) error {
	return s.change(ctx, uid, func(doc *doc, now time.Time) error {
		f, err := doc.filterOfKeyword(id)
		if err != nil {
			return err
		}
		return Draft{Keywords: []KeywordEdit{{ID: id, Destroy: true}}}.apply(doc, f, now)
	})
}

// AddStatus adds the post pid to uid's filter id, and returns the
// StatusRef. The post must exist and be seen by uid (else NotFound).
func (s *Store) AddStatus(ctx context.Context, uid, id, pid int64) (StatusRef, error) {
	if _, err := s.st.Post(ctx, uid, pid); err != nil {
		return StatusRef{}, err
	}
	var made StatusRef
	err := s.change(ctx, uid, func(doc *doc, _ time.Time) error {
		f, err := doc.filter(id)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(f.Statuses, func(r StatusRef) bool { return r.PostID == pid }) {
			return retwis.Errorf(retwis.Invalid, "The post is already in the filter.")
		}
		if len(f.Statuses) >= MaxStatuses {
			return retwis.Errorf(retwis.Invalid, "At most %d posts in a filter.", MaxStatuses)
		}
		made = StatusRef{ID: doc.next(), PostID: pid}
		f.Statuses = append(f.Statuses, made)
		return nil
	})
	return made, err
}

// DeleteStatus removes uid's filtered post id (the StatusRef's) from its
// filter.
func (s *Store) DeleteStatus(ctx context.Context, uid, id int64) error {
	return s.change(ctx, uid, func(doc *doc, _ time.Time) error {
		for i := range doc.Filters {
			f := &doc.Filters[i]
			if j := slices.IndexFunc(f.Statuses, func(r StatusRef) bool { return r.ID == id }); j >= 0 {
				f.Statuses = slices.Delete(f.Statuses, j, j+1)
				return nil
			}
		}
		return notFound("filtered status")
	})
}

// apply writes d into f, a filter of doc, checking every rule.
func (d Draft) apply(doc *doc, f *Filter, now time.Time) error {
	if d.Title != nil {
		title := strings.TrimSpace(*d.Title)
		if title == "" || utf8.RuneCountInString(title) > MaxTitleLen {
			return retwis.Errorf(retwis.Invalid, "A filter's title must have 1 to %d characters.", MaxTitleLen)
		}
		f.Title = title
	}
	if d.Context != nil {
		if err := checkContext(d.Context); err != nil {
			return err
		}
		f.Context = slices.Compact(slices.Sorted(slices.Values(d.Context)))
	}
	if d.Action != nil {
		if *d.Action != Warn && *d.Action != Hide {
			return retwis.Errorf(retwis.Invalid, "A filter's action is warn or hide.")
		}
		f.Action = *d.Action
	}
	if d.Expires != nil {
		f.ExpiresAt = *d.Expires
	}
	for _, e := range d.Keywords {
		if err := e.apply(doc, f); err != nil {
			return err
		}
	}
	return nil
}

// checkContext refuses an empty context or one Mastodon does not name.
func checkContext(context []string) error {
	if len(context) == 0 {
		return retwis.Errorf(retwis.Invalid, "A filter needs a context.")
	}
	for _, c := range context {
		if !slices.Contains(Contexts, c) {
			return retwis.Errorf(retwis.Invalid, "%q is not a context of filters (%s).", c, strings.Join(Contexts, ", "))
		}
	}
	return nil
}

// apply adds, changes or removes e's keyword in f.
func (e KeywordEdit) apply(doc *doc, f *Filter) error {
	at := -1
	if e.ID != 0 {
		if at = slices.IndexFunc(f.Keywords, func(k Keyword) bool { return k.ID == e.ID }); at < 0 {
			return notFound("keyword")
		}
	}
	if e.Destroy {
		if at >= 0 {
			f.Keywords = slices.Delete(f.Keywords, at, at+1)
		}
		return nil
	}
	if at < 0 {
		if e.Keyword == nil {
			return retwis.Errorf(retwis.Invalid, "A keyword cannot be empty.")
		}
		if len(f.Keywords) >= MaxKeywords {
			return retwis.Errorf(retwis.Invalid, "At most %d keywords in a filter.", MaxKeywords)
		}
		f.Keywords = append(f.Keywords, Keyword{ID: doc.next(), WholeWord: true})
		at = len(f.Keywords) - 1
	}
	k := &f.Keywords[at]
	if e.Keyword != nil {
		kw := strings.TrimSpace(*e.Keyword)
		if kw == "" || utf8.RuneCountInString(kw) > MaxKeywordLen {
			return retwis.Errorf(retwis.Invalid, "A keyword must have 1 to %d characters.", MaxKeywordLen)
		}
		k.Keyword = kw
	}
	if e.WholeWord != nil {
		k.WholeWord = *e.WholeWord
	}
	return nil
}

// next returns a new id for a filter, keyword or post of doc.
func (d *doc) next() int64 {
	d.Next++
	return d.Next
}

// filter returns doc's filter id.
func (d *doc) filter(id int64) (*Filter, error) {
	for i := range d.Filters {
		if d.Filters[i].ID == id {
			return &d.Filters[i], nil
		}
	}
	return nil, notFound("filter")
}

// filterOfKeyword returns the filter of doc that has the keyword id.
func (d *doc) filterOfKeyword(id int64) (*Filter, error) {
	for i := range d.Filters {
		if slices.ContainsFunc(d.Filters[i].Keywords, func(k Keyword) bool { return k.ID == id }) {
			return &d.Filters[i], nil
		}
	}
	return nil, notFound("keyword")
}

// errRaced is a write that another write of the same filters overtook.
var errRaced = errors.New("filters: written meanwhile")

// change reads uid's filters, lets edit change them (its error ends the
// write), drops those expired, and writes them back unless another write
// came between (then it tries again): two writes at once lose neither.
func (s *Store) change(ctx context.Context, uid int64, edit func(*doc, time.Time) error) error {
	for try := range writeTries {
		err := s.changeOnce(ctx, uid, edit)
		if !errors.Is(err, errRaced) {
			return err
		}
		time.Sleep(time.Duration(rand.Int64N(int64(try+1) * int64(time.Millisecond))))
	}
	return retwis.Errorf(retwis.Conflict, "The filters changed meanwhile: try again.")
}

// changeOnce is one try of change.
func (s *Store) changeOnce(ctx context.Context, uid int64, edit func(*doc, time.Time) error) error {
	key := schema.Filters(uid)
	s.st.Written.Add(key)
	vals, err := s.st.C.Do(ctx, s.st.C.B().Hmget().Key(key).Field(schema.FieldFiltersVersion, schema.FieldFiltersDoc).Build()).ToArray()
	if err != nil {
		return s.st.Wrap("filters", err)
	}
	version, _ := vals[0].ToString()
	raw, _ := vals[1].ToString()
	d, err := parse(raw)
	if err != nil {
		return s.st.Wrap("filters", err)
	}
	now := time.Now()
	d.Filters = slices.DeleteFunc(d.Filters, func(f Filter) bool { return f.Expired(now) })
	if err := edit(&d, now); err != nil {
		return err
	}
	return s.write(ctx, uid, version, d)
}

// write writes d as uid's filters unless their version is no longer
// version (errRaced), and marks the user as one who made filters
// (schema.FieldFiltered), in the same round trip.
func (s *Store) write(ctx context.Context, uid int64, version string, d doc) error {
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	key, user := schema.Filters(uid), schema.User(uid)
	n, _ := strconv.ParseInt(version, 10, 64)
	fields := []string{schema.FieldFiltersVersion, strconv.FormatInt(n+1, 10), schema.FieldFiltersDoc, string(body)}
	s.st.Written.Add(user)
	res := s.st.Pipeline(ctx, func() rueidis.Commands {
		// The first write creates the hash unless another did (0); the
		// next ones write it unless its version changed (-1) or it is
		// gone (0): kernel.EditPost is the compare-and-set of any hash's
		// field. The user's mark is set unless the user is gone.
		write := kernel.CreateIfAbsent.Cmd(s.st.C, []string{key}, fields...)
		if version != "" {
			write = kernel.EditPost.Cmd(s.st.C, []string{key}, append([]string{schema.FieldFiltersVersion, version}, fields...)...)
		}
		return rueidis.Commands{write, kernel.SetIfExists.Cmd(s.st.C, []string{user}, schema.FieldFiltered, "1")}
	})
	if err := redisconn.FirstErr(res); err != nil {
		return s.st.Wrap("write filters", err)
	}
	written, err := res[0].AsInt64()
	if err != nil {
		return s.st.Wrap("write filters", err)
	}
	if written <= 0 {
		return errRaced
	}
	return nil
}
