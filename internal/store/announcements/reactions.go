package announcements

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/kernel"
	"github.com/retwis/retwis/internal/store/schema"
)

// MaxReactions is how many different emoji an announcement is reacted
// with at most (Mastodon's limit); MaxEmojiBytes bounds one emoji.
const (
	MaxReactions  = 8
	MaxEmojiBytes = 64
)

// Reaction is the users' reactions of one emoji to an announcement:
// how many, and whether the viewer is one of them.
type Reaction struct {
	Name  string
	Count int64
	Me    bool
}

// Shown is an announcement as a user sees it: whether they dismissed
// it, and its reactions, the most frequent first.
type Shown struct {
	Announcement
	Read      bool
	Reactions []Reaction
}

// Active returns the announcements active at now as uid sees them,
// oldest first: four reads in one round trip, through the client-side
// cache (none once warm).
func (s *Store) Active(ctx context.Context, uid int64, now time.Time) ([]Shown, error) {
	b, ttl := s.st.C.B(), s.st.Opts.CacheTTL
	res := s.st.CachedMulti(ctx, rueidis.CT(b.Hgetall().Key(schema.Announcements).Cache(), ttl),
		rueidis.CT(b.Hgetall().Key(schema.AnnouncementReactions).Cache(), ttl),
		rueidis.CT(b.Smembers().Key(schema.AnnouncementsRead(uid)).Cache(), ttl),
		rueidis.CT(b.Smembers().Key(schema.AnnouncementsReacted(uid)).Cache(), ttl))
	all, err := res[0].AsStrMap()
	counts, err1 := res[1].AsIntMap()
	read, err2 := res[2].AsStrSlice()
	mine, err3 := res[3].AsStrSlice()
	if err = cmp.Or(err, err1, err2, err3); err != nil {
		return nil, s.st.Wrap("announcements", err)
	}
	var out []Shown
	for _, a := range s.parse(all) {
		if a.ActiveAt(now) {
			out = append(out, Shown{Announcement: a, Read: slices.Contains(read, kernel.ID(a.ID)), Reactions: reactionsOf(a.ID, counts, mine)})
		}
	}
	return out, nil
}

// Unread returns the announcements active at now that uid has not
// dismissed, oldest first, through the client-side cache: the
// announcements, and uid's dismissals only if one is active.
func (s *Store) Unread(ctx context.Context, uid int64, now time.Time) ([]Announcement, error) {
	all, err := s.All(ctx)
	if err != nil {
		return nil, err
	}
	return s.unread(ctx, uid, all, now)
}

// unread returns those of all active at now that uid has not dismissed.
func (s *Store) unread(ctx context.Context, uid int64, all []Announcement, now time.Time) ([]Announcement, error) {
	all = slices.DeleteFunc(all, func(a Announcement) bool { return !a.ActiveAt(now) })
	if len(all) == 0 {
		return nil, nil
	}
	read, err := s.st.Cached(ctx, s.st.C.B().Smembers().Key(schema.AnnouncementsRead(uid)).Cache(), s.st.Opts.CacheTTL).AsStrSlice()
	if err != nil {
		return nil, s.st.Wrap("announcements read", err)
	}
	return slices.DeleteFunc(all, func(a Announcement) bool { return slices.Contains(read, kernel.ID(a.ID)) }), nil
}

// Pending is Unread of a page, whose read of the announcements goes with
// the page's first round trip (Start, store.PageQuery.Along): a home page
// costs no round trip more for them, and none at all while none is
// active (uid's dismissals are read only then).
type Pending struct {
	s    *Store
	uid  int64
	slot kernel.Slot
}

// Pending returns uid's Unread to start with a page.
func (s *Store) Pending(uid int64) *Pending { return &Pending{s: s, uid: uid} }

// Start adds the read of the announcements to first.
func (p *Pending) Start(first *kernel.Batch) {
	p.slot = first.Add(rueidis.CT(p.s.st.C.B().Hgetall().Key(schema.Announcements).Cache(), p.s.st.Opts.CacheTTL))
}

// Unread returns what Unread does, once the page's batch is read; a
// failure is logged, and none returned: the page goes on without them.
func (p *Pending) Unread(ctx context.Context, now time.Time) []Announcement {
	all, err := p.slot.Replies()[0].AsStrMap()
	var unread []Announcement
	if err == nil {
		unread, err = p.s.unread(ctx, p.uid, p.s.parse(all), now)
	}
	if err != nil {
		p.s.st.Log.Warn("announcements", "user", p.uid, "err", err)
	}
	return unread
}

// reactionsOf returns announcement id's reactions from the counts of all
// and the viewer's own (mine), the most frequent first.
func reactionsOf(id int64, counts map[string]int64, mine []string) []Reaction {
	out := []Reaction{}
	for f, n := range counts {
		if a, name, ok := parseReaction(f); ok && a == id && n > 0 {
			out = append(out, Reaction{Name: name, Count: n, Me: slices.Contains(mine, f)})
		}
	}
	slices.SortFunc(out, func(a, b Reaction) int { return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Name, b.Name)) })
	return out
}

// React adds uid's reaction of emoji name to announcement id: an error
// of kind NotFound if there is no such announcement, Invalid if name is
// not one emoji or the announcement has MaxReactions others already.
// Reacting twice the same is once.
func (s *Store) React(ctx context.Context, uid, id int64, name string) error {
	if !ValidEmoji(name) {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Name is not a recognized emoji")
	}
	if _, err := s.one(ctx, id); err != nil {
		return err
	}
	b, f := s.st.C.B(), reactionField(id, name)
	counts, err := s.st.C.Do(ctx, b.Hgetall().Key(schema.AnnouncementReactions).Build()).AsIntMap()
	if err != nil {
		return s.st.Wrap("react", err)
	}
	if _, ok := counts[f]; !ok && len(reactionsOf(id, counts, nil)) >= MaxReactions {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Name is over the limit of %d different reactions", MaxReactions)
	}
	return s.mark(ctx, uid, f, 1)
}

// Unreact takes uid's reaction of emoji name to announcement id back, if
// they reacted so: an error of kind NotFound if there is no such
// announcement.
func (s *Store) Unreact(ctx context.Context, uid, id int64, name string) error {
	if !ValidEmoji(name) {
		return retwis.Errorf(retwis.Invalid, "Validation failed: Name is not a recognized emoji")
	}
	if _, err := s.one(ctx, id); err != nil {
		return err
	}
	return s.mark(ctx, uid, reactionField(id, name), -1)
}

// mark adds (by 1) or removes (by -1) uid's reaction f, and counts it
// if that changed uid's set: the set is the truth, the count follows
// it.
func (s *Store) mark(ctx context.Context, uid int64, f string, by int64) error {
	b, key := s.st.C.B(), schema.AnnouncementsReacted(uid)
	s.st.Written.Add(key, schema.AnnouncementReactions)
	cmd := b.Sadd().Key(key).Member(f).Build()
	if by < 0 {
		cmd = b.Srem().Key(key).Member(f).Build()
	}
	changed, err := s.st.C.Do(ctx, cmd).AsInt64()
	if err != nil || changed == 0 {
		return s.st.Wrap("react", err)
	}
	n, err := s.st.C.Do(ctx, b.Hincrby().Key(schema.AnnouncementReactions).Field(f).Increment(by).Build()).AsInt64()
	if err == nil && n <= 0 {
		err = s.st.C.Do(ctx, b.Hdel().Key(schema.AnnouncementReactions).Field(f).Build()).Error()
	}
	return s.st.Wrap("react: count", err)
}

// Forget takes every reaction of uid back (their account is deleted).
func (s *Store) Forget(ctx context.Context, uid int64) error {
	mine, err := s.st.C.Do(ctx, s.st.C.B().Smembers().Key(schema.AnnouncementsReacted(uid)).Build()).AsStrSlice()
	if err != nil {
		return s.st.Wrap("forget reactions", err)
	}
	for _, f := range mine {
		if err := s.mark(ctx, uid, f, -1); err != nil {
			return err
		}
	}
	return nil
}

// reactionField is the field of announcement id's reaction name.
func reactionField(id int64, name string) string { return kernel.ID(id) + ":" + name }

// parseReaction reads a field of the reactions' counts.
func parseReaction(f string) (id int64, name string, ok bool) {
	a, name, found := strings.Cut(f, ":")
	id, err := strconv.ParseInt(a, 10, 64)
	return id, name, found && err == nil && name != ""
}

// ValidEmoji says whether s is one emoji (one grapheme of Unicode's
// emoji: a pictograph, a flag, a keycap, with their modifiers, or a
// sequence of them joined by ZWJ), at most MaxEmojiBytes long.
func ValidEmoji(s string) bool {
	if s == "" || len(s) > MaxEmojiBytes || !utf8.ValidString(s) {
		return false
	}
	rs := []rune(s)
	for i := 0; ; i++ { // i: the start of an element of the sequence
		n := emojiElement(rs[i:])
		if n == 0 {
			return false
		}
		for i += n; i < len(rs) && isModifier(rs[i]); i++ {
		}
		if i == len(rs) {
			return true
		}
		if rs[i] != 0x200D || i+1 == len(rs) { // only a ZWJ joins another
			return false
		}
	}
}

// emojiElement returns how many runes the emoji at the start of rs
// takes (a flag two, a keycap two or three), 0 if none begins there.
func emojiElement(rs []rune) int {
	r := rs[0]
	switch {
	case isRegional(r):
		if len(rs) > 1 && isRegional(rs[1]) {
			return 2
		}
	case r == '#' || r == '*' || (r >= '0' && r <= '9'):
		if len(rs) > 1 && rs[1] == 0x20E3 {
			return 2
		}
		if len(rs) > 2 && rs[1] == 0xFE0F && rs[2] == 0x20E3 {
			return 3
		}
	case isPictograph(r):
		return 1
	}
	return 0
}

// isRegional says whether r is a regional indicator (two make a flag).
func isRegional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// isModifier says whether r modifies the emoji before it: the emoji
// presentation selector, a skin tone, or a tag (of a subdivision flag).
func isModifier(r rune) bool {
	return r == 0xFE0F || (r >= 0x1F3FB && r <= 0x1F3FF) || (r >= 0xE0020 && r <= 0xE007F)
}

// isPictograph says whether r is one of the emoji pictographs.
func isPictograph(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF:
		return !isRegional(r) && !isModifier(r)
	case r >= 0x2600 && r <= 0x27BF, r >= 0x2300 && r <= 0x23FF, r >= 0x2B00 && r <= 0x2BFF, r >= 0x2190 && r <= 0x21FF:
		return true
	}
	return slices.Contains([]rune{0xA9, 0xAE, 0x203C, 0x2049, 0x2122, 0x2139, 0x24C2, 0x25AA, 0x25AB, 0x25B6, 0x25C0, 0x3030, 0x303D, 0x3297, 0x3299}, r) ||
		(r >= 0x25FB && r <= 0x25FE)
}
