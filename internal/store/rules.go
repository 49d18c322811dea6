package store

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/schema"
)

// Rule is one of the instance's rules, which its operator sets: shown
// on the sign-up page and to the client API (Mastodon's Rule entity).
type Rule struct {
	ID   int64  `json:"-"`
	Text string `json:"text"`
	Hint string `json:"hint,omitempty"` // more about it, if any
}

// The longest rule text and hint, in characters (Mastodon's are 300
// and 2,000 at most likewise).
const (
	MaxRuleText = 300
	MaxRuleHint = 2000
)

// Rules returns the instance's rules, in the order they were added,
// through the client-side cache.
func (s *Store) Rules(ctx context.Context) ([]Rule, error) {
	all, err := s.Cached(ctx, s.C.B().Hgetall().Key(schema.Rules).Cache(), s.Opts.CacheTTL).AsStrMap()
	if err != nil {
		return nil, s.Wrap("rules", err)
	}
	rules := make([]Rule, 0, len(all))
	for id, v := range all {
		r := Rule{}
		r.ID, err = strconv.ParseInt(id, 10, 64)
		if err != nil || json.Unmarshal([]byte(v), &r) != nil {
			s.Log.Warn("a rule does not parse; it is left out", "id", id)
			continue
		}
		rules = append(rules, r)
	}
	slices.SortFunc(rules, func(a, b Rule) int { return cmp.Compare(a.ID, b.ID) })
	return rules, nil
}

// AddRule adds a rule (its text, up to MaxRuleText characters, and a
// hint, which may be empty) after the others, and returns it.
func (s *Store) AddRule(ctx context.Context, text, hint string) (Rule, error) {
	r := Rule{Text: strings.TrimSpace(text), Hint: strings.TrimSpace(hint)}
	switch {
	case r.Text == "":
		return Rule{}, retwis.Errorf(retwis.Invalid, "A rule needs a text.")
	case utf8.RuneCountInString(r.Text) > MaxRuleText || utf8.RuneCountInString(r.Hint) > MaxRuleHint:
		return Rule{}, retwis.Errorf(retwis.Invalid, "A rule's text may be %d characters long at most, its hint %d.", MaxRuleText, MaxRuleHint)
	}
	v, err := json.Marshal(r)
	if err != nil {
		return Rule{}, s.Wrap("add rule", err)
	}
	if r.ID, err = s.C.Do(ctx, s.C.B().Incr().Key(schema.NextRuleID).Build()).AsInt64(); err != nil {
		return Rule{}, s.Wrap("add rule: id", err)
	}
	cmd := s.C.B().Hset().Key(schema.Rules).FieldValue().FieldValue(strconv.FormatInt(r.ID, 10), string(v)).Build()
	if err := s.C.Do(ctx, cmd).Error(); err != nil {
		return Rule{}, s.Wrap("add rule", err)
	}
	return r, nil
}

// RemoveRule removes rule id: an error of kind NotFound if there is none.
func (s *Store) RemoveRule(ctx context.Context, id int64) error {
	n, err := s.C.Do(ctx, s.C.B().Hdel().Key(schema.Rules).Field(strconv.FormatInt(id, 10)).Build()).AsInt64()
	if err != nil {
		return s.Wrap("remove rule", err)
	}
	if n == 0 {
		return retwis.Errorf(retwis.NotFound, "There is no rule %d.", id)
	}
	return nil
}
