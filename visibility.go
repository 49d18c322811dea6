package retwis

import "slices"

// Visibility is who may see a post, and where it is listed.
type Visibility uint8

// The visibilities of a post, from the widest to the narrowest, named as
// Mastodon names them.
const (
	// Public posts are seen by everyone, everywhere: the global
	// timeline, tag pages, trends.
	Public Visibility = iota
	// Unlisted posts are seen by everyone, but only on the author's
	// profile, in threads and on followers' home timelines: not on the
	// global timeline, tag pages or trends.
	Unlisted
	// Private posts (followers-only) are seen only by the author's
	// followers and the users the post mentions, wherever they are shown.
	Private
	// Direct posts are seen only by the users the post mentions, on their
	// home timelines and Direct pages.
	Direct
)

// visibilityNames spell each Visibility, in order.
var visibilityNames = [...]string{"public", "unlisted", "private", "direct"}

// String spells v as forms, the API and the post hash do: "public",
// "unlisted", "private" or "direct".
func (v Visibility) String() string {
	if int(v) < len(visibilityNames) {
		return visibilityNames[v]
	}
	return "public"
}

// ParseVisibility reads a visibility as String spells it; "" is Public.
// Anything else is an error of kind Invalid.
func ParseVisibility(s string) (Visibility, error) {
	if s == "" {
		return Public, nil
	}
	if i := slices.Index(visibilityNames[:], s); i >= 0 {
		return Visibility(i), nil
	}
	return Public, Errorf(Invalid, "The visibility must be public, unlisted, private (followers only) or direct, not %.40q.", s)
}

// Listed reports whether posts of visibility v are listed where anyone
// browses: the global timeline, tag pages and their streams, trends and
// the completion of tags. Only public posts are.
func (v Visibility) Listed() bool { return v == Public }

// ToFollowers reports whether posts of visibility v go to the author's
// followers' home timelines: all but direct ones, which go only to the
// users they mention.
func (v Visibility) ToFollowers() bool { return v != Direct }

// Boostable reports whether a post of visibility v may be boosted: a
// boost shows it to the booster's followers, which a followers-only or
// direct post is not for.
func (v Visibility) Boostable() bool { return v == Public || v == Unlisted }

// Narrower returns the narrower of v and w: a reply defaults to its
// parent's visibility when that is narrower than the one asked for.
func (v Visibility) Narrower(w Visibility) Visibility { return max(v, w) }

// Mentioned reports whether p mentions user uid.
func (p Post) Mentioned(uid int64) bool { return uid != 0 && slices.Contains(p.MentionIDs, uid) }

// NeedsFollow reports whether the answer to whether viewer (0: logged out) sees p
// depends on whether viewer follows its author: p is private, by someone
// else, and does not mention viewer.
func (p Post) NeedsFollow(viewer int64) bool {
	return p.Visibility == Private && viewer != 0 && viewer != p.AuthorID && !p.Mentioned(viewer)
}

// SeenBy reports whether viewer (0: logged out) may see p, given whether
// viewer follows p's author (only asked when NeedsFollow). The author
// sees their own posts; blocks, mutes and suspensions are Hidden's.
func (p Post) SeenBy(viewer int64, follows bool) bool {
	switch {
	case p.Visibility <= Unlisted, viewer != 0 && (viewer == p.AuthorID || p.Mentioned(viewer)):
		return true
	case p.Visibility == Private:
		return viewer != 0 && follows
	}
	return false
}

// Visibilities returns every visibility, from the widest to the
// narrowest, for a form to offer.
func Visibilities() []Visibility { return []Visibility{Public, Unlisted, Private, Direct} }

// Label is what a page calls v: "public", "unlisted", "followers only"
// or "direct".
func (v Visibility) Label() string {
	if v == Private {
		return "followers only"
	}
	return v.String()
}
