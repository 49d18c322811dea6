package retwis

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// EntityKind says what an entity of a post is.
type EntityKind int

// The kinds of entity.
const (
	EntityMention EntityKind = iota + 1 // "@" and a username
	EntityTag                           // "#" and a hashtag
	EntityURL                           // an http or https link
)

// Entity is a mention, hashtag or link found in a post's body.
type Entity struct {
	Kind EntityKind
	// Start and End are byte offsets in the body: body[Start:End] is the
	// entity as written, "@" or "#" included.
	Start, End int
	// Name is a mention's username or a tag's name as written, without
	// the "@" or "#", or a link's URL.
	Name string
}

// Limits on entities: a longer run of characters is no entity at all.
const (
	maxTagRunes = 100  // code points after the "#"
	maxURLBytes = 2048 // bytes, before trailing punctuation is cut off
)

// urlTrailers are the characters cut off the end of a link: they end the
// sentence around it far more often than the link itself.
const urlTrailers = `.,:;!?'"’”`

// Entities returns the mentions, hashtags and links in a post's body, in
// order and never overlapping. Any string will do: bytes that are not
// valid UTF-8 are never part of an entity.
//
// A mention is "@" and a username: the whole run of ASCII letters,
// digits and underscores after it, so "@bob's" mentions bob, and a run
// longer than 32 is no mention. A hashtag is "#" and at most 100 letters,
// marks, digits and underscores of any script, at least one of them a
// letter: "#café", "#日本語" and "#redis!" are tags, "#123" is not.
// Neither starts right after a letter, digit, mark or underscore, nor
// right after its own sigil, so "alice@example.com", "C#" and "##x" hold
// none.
//
// A link starts with "http://" or "https://", in any case, not right
// after a letter, digit, mark or underscore, and runs up to the next
// space, control character or invalid byte; a run longer than 2048 bytes
// is no link. Its trailing . , : ; ! ? ' " ’ ” are cut off, and so is a
// closing parenthesis or bracket that has no opening one in the link, so
// "(see https://go.dev/a_(b))." links to "https://go.dev/a_(b)". What
// remains must parse as a URL with a host.
//
// Entities are found from the left, and the text one covers starts no
// other: "#tags" and "@names" inside a link are part of the link.
func Entities(body string) []Entity {
	var es []Entity
	for i := 0; i < len(body); {
		if e, ok := entityAt(body, i); ok {
			es = append(es, e)
			i = e.End
			continue
		}
		_, size := utf8.DecodeRuneInString(body[i:])
		i += size
	}
	return es
}

// entityAt returns the entity that starts at body[i], if any.
func entityAt(body string, i int) (Entity, bool) {
	c := body[i]
	if c != '@' && c != '#' && c != 'h' && c != 'H' || !isBoundary(body, i) {
		return Entity{}, false
	}
	switch c {
	case '@':
		return mentionAt(body, i)
	case '#':
		return tagAt(body, i)
	}
	return urlAt(body, i)
}

// isBoundary reports whether an entity may start at body[i]: not right
// after a letter, digit, mark or underscore, nor after the same byte.
func isBoundary(body string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(body[:i])
	return r != rune(body[i]) && !isWordRune(r)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func mentionAt(body string, i int) (Entity, bool) {
	end := i + 1
	for end < len(body) && isNameByte(body[end]) {
		end++
	}
	if n := end - i - 1; n < 1 || n > MaxUsernameLen {
		return Entity{}, false
	}
	return Entity{Kind: EntityMention, Start: i, End: end, Name: body[i+1 : end]}, true
}

func tagAt(body string, i int) (Entity, bool) {
	end, n, letter := i+1, 0, false
	for end < len(body) && n <= maxTagRunes {
		r, size := utf8.DecodeRuneInString(body[end:])
		if !isWordRune(r) { // nor is utf8.RuneError
			break
		}
		letter = letter || unicode.IsLetter(r)
		end += size
		n++
	}
	if !letter || n > maxTagRunes {
		return Entity{}, false
	}
	return Entity{Kind: EntityTag, Start: i, End: end, Name: body[i+1 : end]}, true
}

// urlDelimiters end a link: they may not appear in one (RFC 3986), and
// text puts them around links ("<https://…>").
const urlDelimiters = `"<>`

func urlAt(body string, i int) (Entity, bool) {
	rest := body[i:]
	if !hasPrefixFold(rest, "http://") && !hasPrefixFold(rest, "https://") {
		return Entity{}, false
	}
	end := 0
	for end < len(rest) && end <= maxURLBytes {
		r, size := utf8.DecodeRuneInString(rest[end:])
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(urlDelimiters, r) {
			break
		}
		end += size
	}
	if end > maxURLBytes {
		return Entity{}, false
	}
	link := trimURL(rest[:end])
	if u, err := url.Parse(link); err != nil || u.Hostname() == "" {
		return Entity{}, false
	}
	return Entity{Kind: EntityURL, Start: i, End: i + len(link), Name: link}, true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// trimURL removes from the end of a link the punctuation that belongs to
// the sentence around it rather than to the link.
func trimURL(link string) string {
	for {
		r, size := utf8.DecodeLastRuneInString(link)
		switch {
		case strings.ContainsRune(urlTrailers, r):
		case r == ')' && strings.Count(link, "(") < strings.Count(link, ")"):
		case r == ']' && strings.Count(link, "[") < strings.Count(link, "]"):
		default:
			return link
		}
		link = link[:len(link)-size]
	}
}

// FoldTag returns the form of a tag used to match it regardless of case
// and accents: "Café", "CAFÉ" and "cafe" fold alike whether their accents
// are precomposed or combining, "Straße" folds like "STRASSE", and Greek
// and Cyrillic fold case too. Only the accents that Latin, Greek and
// Cyrillic letters carry (the combining diacritical marks U+0300–U+036F)
// are removed: the marks of other scripts spell different words, as the
// voiced sound mark does in "ガンダム", and are kept.
func FoldTag(name string) string {
	if ascii, ok := foldASCII(name); ok {
		return ascii // most names: no chain to build
	}
	// A transform.Chain keeps state, so each call builds its own.
	t := transform.Chain(norm.NFD, runes.Remove(runes.Predicate(isAccent)), cases.Fold(), norm.NFC)
	folded, _, err := transform.String(t, name)
	if err != nil {
		return name // not reached: these transformers take any input
	}
	return folded
}

func isAccent(r rune) bool { return '\u0300' <= r && r <= '\u036f' }

// foldASCII folds name as FoldTag does if it is all ASCII, where folding
// is lowering the case of A–Z (as FoldUsername does); ok is false for
// any other text.
func foldASCII(name string) (folded string, ok bool) {
	for i := range len(name) {
		if name[i] >= utf8.RuneSelf {
			return "", false
		}
	}
	return FoldUsername(name), true
}

// TagsAndMentions returns what a post's body says of its conversations:
// its tags as written, the first of each folded form (see FoldTag), up
// to MaxTags; and the names it mentions, the first of each ignoring
// case, up to MaxMentions, whether or not such users exist.
func TagsAndMentions(body string) (tags, names []string) {
	seen := map[string]bool{}
	for _, e := range Entities(body) {
		switch e.Kind {
		case EntityTag:
			if f := "#" + FoldTag(e.Name); len(tags) < MaxTags && !seen[f] {
				seen[f] = true
				tags = append(tags, e.Name)
			}
		case EntityMention:
			if f := "@" + FoldUsername(e.Name); len(names) < MaxMentions && !seen[f] {
				seen[f] = true
				names = append(names, e.Name)
			}
		}
	}
	return tags, names
}

// Segment is a piece of a post's body: plain text (Kind 0), or an entity
// to mark up, with the username of a mentioned user as registered.
type Segment struct {
	Kind EntityKind // 0 for plain text
	Text string     // as written
	Name string     // a mention's username as registered, a tag's name, a link's URL
}

// Segments cuts the body of p into plain text and the entities to mark
// up: its tags, its links and its mentions of users that existed when it
// was posted (the others stay plain text).
func (p Post) Segments() []Segment {
	known := make(map[string]string, len(p.Mentions)) // folded -> as registered
	for _, name := range p.Mentions {
		known[FoldUsername(name)] = name
	}
	var out []Segment
	at := 0
	for _, e := range Entities(p.Body) {
		name := e.Name
		if e.Kind == EntityMention {
			var ok bool
			if name, ok = known[FoldUsername(e.Name)]; !ok {
				continue // nobody of that name: plain text
			}
		}
		if at < e.Start {
			out = append(out, Segment{Text: p.Body[at:e.Start]})
		}
		out = append(out, Segment{Kind: e.Kind, Text: p.Body[e.Start:e.End], Name: name})
		at = e.End
	}
	if at < len(p.Body) {
		out = append(out, Segment{Text: p.Body[at:]})
	}
	return out
}

// Paragraphs cuts the body of p into its paragraphs, which blank lines
// separate, each cut into segments as Segments cuts the body; the plain
// text of a segment may still hold single line breaks ("\n"), which
// renderers show as breaks within the paragraph. A body without blank
// lines is one paragraph.
func (p Post) Paragraphs() [][]Segment {
	paras := [][]Segment{nil}
	for _, seg := range p.Segments() {
		if seg.Kind != 0 {
			paras[len(paras)-1] = append(paras[len(paras)-1], seg)
			continue
		}
		for i, text := range splitParagraphs(seg.Text) {
			if i > 0 {
				paras = append(paras, nil)
			}
			if text != "" {
				paras[len(paras)-1] = append(paras[len(paras)-1], Segment{Text: text})
			}
		}
	}
	return paras
}

// splitParagraphs cuts text at its blank lines: each run of line breaks
// with nothing but spaces between them; the spaces that begin the line
// after stay.
func splitParagraphs(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		rest := strings.TrimLeftFunc(text[i+1:], unicode.IsSpace)
		gap := text[i+1 : len(text)-len(rest)]
		if last := strings.LastIndexByte(gap, '\n'); last >= 0 { // a blank line: the spaces after it begin the next
			out = append(out, text[start:i])
			start = i + 1 + last + 1
			i = start - 1
		}
	}
	return append(out, text[start:])
}
