package retwis

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func mention(start, end int, name string) Entity { return Entity{EntityMention, start, end, name} }
func tag(start, end int, name string) Entity     { return Entity{EntityTag, start, end, name} }
func link(start, end int, name string) Entity    { return Entity{EntityURL, start, end, name} }

var entityTests = []struct {
	body string
	want []Entity
}{
	{"", nil},
	{"hello world", nil},

	// Mentions.
	{"@bob", []Entity{mention(0, 4, "bob")}},
	{"hi @bob", []Entity{mention(3, 7, "bob")}},
	{"(@bob)", []Entity{mention(1, 5, "bob")}},
	{"@bob, hi", []Entity{mention(0, 4, "bob")}},
	{"@bob's post", []Entity{mention(0, 4, "bob")}},
	{"@Alice_99!", []Entity{mention(0, 9, "Alice_99")}},
	{"alice@example.com", nil},
	{"é@bob", nil},
	{"e\u0301@bob", nil},
	{"@@bob", nil},
	{"@ alone", nil},
	{"@" + strings.Repeat("x", 32), []Entity{mention(0, 33, strings.Repeat("x", 32))}},
	{"@" + strings.Repeat("x", 33), nil},

	// Tags.
	{"#redis", []Entity{tag(0, 6, "redis")}},
	{"#redis!", []Entity{tag(0, 6, "redis")}},
	{"#redis.", []Entity{tag(0, 6, "redis")}},
	{"“#quoted”", []Entity{tag(3, 10, "quoted")}},
	{"C# and a#b", nil},
	{"##x", nil},
	{"#123", nil},
	{"#_", nil},
	{"#1a", []Entity{tag(0, 3, "1a")}},
	{"#café", []Entity{tag(0, 6, "café")}},
	{"#Café", []Entity{tag(0, 6, "Café")}},
	{"#cafe\u0301", []Entity{tag(0, 7, "cafe\u0301")}},
	{"#日本語", []Entity{tag(0, 10, "日本語")}},
	{"#ñandú_2", []Entity{tag(0, 10, "ñandú_2")}},
	{"#" + strings.Repeat("é", 100) + "!", []Entity{tag(0, 201, strings.Repeat("é", 100))}},
	{"#" + strings.Repeat("é", 101), nil},

	// Links.
	{"https://example.com", []Entity{link(0, 19, "https://example.com")}},
	{"see https://example.com.", []Entity{link(4, 23, "https://example.com")}},
	{"(see https://example.com)", []Entity{link(5, 24, "https://example.com")}},
	{"https://example.com!?\"", []Entity{link(0, 19, "https://example.com")}},
	{"“https://example.com”", []Entity{link(3, 22, "https://example.com")}},
	{"https://en.wikipedia.org/wiki/Go_(programming_language)",
		[]Entity{link(0, 55, "https://en.wikipedia.org/wiki/Go_(programming_language)")}},
	{"(https://en.wikipedia.org/wiki/Go_(programming_language)).",
		[]Entity{link(1, 56, "https://en.wikipedia.org/wiki/Go_(programming_language)")}},
	{"https://x.io/a[1] [https://x.io/b]",
		[]Entity{link(0, 17, "https://x.io/a[1]"), link(19, 33, "https://x.io/b")}},
	{"https://example.com/search?q=go&lang=en#results",
		[]Entity{link(0, 47, "https://example.com/search?q=go&lang=en#results")}},
	{"http://example.com/#tag?u=@x", []Entity{link(0, 28, "http://example.com/#tag?u=@x")}},
	{"<https://example.com/a>b", []Entity{link(1, 22, "https://example.com/a")}},
	{`"https://x.io/?q="2"`, []Entity{link(1, 17, "https://x.io/?q=")}},
	{"HTTPS://EXAMPLE.COM/ Http://x.io", []Entity{link(0, 20, "HTTPS://EXAMPLE.COM/"), link(21, 32, "Http://x.io")}},
	{"http://", nil},
	{"http:// x", nil},
	{"https://.", nil},
	{"https://:80", nil},
	{"http://#tag", []Entity{tag(7, 11, "tag")}},
	{"xhttp://example.com", nil},
	{"ftp://example.com", nil},
	{"https://x.io/" + strings.Repeat("a", 2035), []Entity{link(0, 2048, "https://x.io/"+strings.Repeat("a", 2035))}},
	{"https://x.io/" + strings.Repeat("a", 2036), nil},

	// Invalid UTF-8 and control characters end entities.
	{"\xff@bob\xff", []Entity{mention(1, 5, "bob")}},
	{"\xc3#caf\xc3", []Entity{tag(1, 5, "caf")}},
	{"#ta\xffg", []Entity{tag(0, 3, "ta")}},
	{"https://x.io/\xffrest", []Entity{link(0, 13, "https://x.io/")}},
	{"https://x.io/a\x00b", []Entity{link(0, 14, "https://x.io/a")}},

	// Several.
	{"@alice: see #redis at https://redis.io (via @bob) #NoSQL", []Entity{
		mention(0, 6, "alice"), tag(12, 18, "redis"), link(22, 38, "https://redis.io"),
		mention(44, 48, "bob"), tag(50, 56, "NoSQL"),
	}},
	{"@a@b #x#y", []Entity{mention(0, 2, "a"), tag(5, 7, "x")}},
}

func TestEntities(t *testing.T) {
	for _, tc := range entityTests {
		if got := Entities(tc.body); !slices.Equal(got, tc.want) {
			t.Errorf("Entities(%q) =\n\t%v; want\n\t%v", tc.body, got, tc.want)
		}
	}
}

func TestFoldTag(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cafe", "cafe"}, {"Café", "cafe"}, {"CAFÉ", "cafe"},
		{"café", "cafe"}, {"cafe\u0301", "cafe"},
		{"Straße", "strasse"}, {"STRASSE", "strasse"},
		{"ΣΊΣΥΦΟΣ", "σισυφοσ"}, {"σίσυφος", "σισυφοσ"},
		{"МОСКВА", "москва"}, {"İstanbul", "istanbul"},
		{"日本語", "日本語"}, {"ガンダム", "ガンダム"}, {"カ\u3099ンダム", "ガンダム"},
		{"ñandú_2", "nandu_2"}, {"", ""}, {"\u0301", ""},
	} {
		if got := FoldTag(tc.in); got != tc.want {
			t.Errorf("FoldTag(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	if FoldTag("パン") == FoldTag("ハン") {
		t.Errorf("FoldTag folds パン and ハン alike")
	}
}

func TestTagsAndMentions(t *testing.T) {
	var many []string
	for i := range 30 {
		many = append(many, fmt.Sprintf("@u%d #t%d", i, i))
	}
	for _, c := range []struct {
		body        string
		tags, names []string
	}{
		{"nothing here", nil, nil},
		{"@Bob @bob @BOB #Café #cafe #CAFÉ #tea", []string{"Café", "tea"}, []string{"Bob"}},
		{"#a @x #b @y #a", []string{"a", "b"}, []string{"x", "y"}},
		{strings.Join(many, " "), []string{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"},
			[]string{"u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10", "u11", "u12", "u13", "u14",
				"u15", "u16", "u17", "u18", "u19"}},
	} {
		tags, names := TagsAndMentions(c.body)
		if !slices.Equal(tags, c.tags) || !slices.Equal(names, c.names) {
			t.Errorf("TagsAndMentions(%.40q) = %q, %q; want %q, %q", c.body, tags, names, c.tags, c.names)
		}
	}
}

func FuzzEntities(f *testing.F) {
	for _, tc := range entityTests {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		es := Entities(body)
		if again := Entities(body); !slices.Equal(es, again) {
			t.Fatalf("Entities(%q) = %v, then %v", body, es, again)
		}
		end := 0
		for _, e := range es {
			if e.Start < end || e.Start >= e.End || e.End > len(body) {
				t.Fatalf("Entities(%q): %v out of order or bounds", body, es)
			}
			end = e.End
			checkEntity(t, body, e)
		}
		FoldTag(body)
	})
}

// checkEntity checks that e, found in body, is well formed for its kind.
func checkEntity(t *testing.T, body string, e Entity) {
	t.Helper()
	text := body[e.Start:e.End]
	if !utf8.ValidString(text) {
		t.Errorf("entity %q is not valid UTF-8", text)
	}
	switch e.Kind {
	case EntityMention:
		if text != "@"+e.Name || ValidateUsername(e.Name) != nil {
			t.Errorf("bad mention %+v in %q", e, body)
		}
	case EntityTag:
		folded := FoldTag(e.Name)
		if text != "#"+e.Name || folded == "" || FoldTag(folded) != folded {
			t.Errorf("bad tag %+v (folded %q) in %q", e, folded, body)
		}
	case EntityURL:
		u, err := url.Parse(e.Name)
		scheme := hasPrefixFold(text, "http://") || hasPrefixFold(text, "https://")
		if text != e.Name || !scheme || err != nil || u.Hostname() == "" {
			t.Errorf("bad link %+v in %q", e, body)
		}
	default:
		t.Errorf("entity %+v of unknown kind in %q", e, body)
	}
}

// TestParagraphs: blank lines (a run of line breaks with only spaces
// between) separate paragraphs, a single line break stays in its
// paragraph's text, and entities fall in the paragraph they are in.
func TestParagraphs(t *testing.T) {
	for _, tc := range []struct {
		body string
		want [][]string // each paragraph's segments' text
	}{
		{"one", [][]string{{"one"}}},
		{"one\ntwo", [][]string{{"one\ntwo"}}},
		{"one\n\ntwo", [][]string{{"one"}, {"two"}}},
		{"one\n \t\n\n  two", [][]string{{"one"}, {"  two"}}},
		{"#a\n\n@bob x\nhttps://a.b", [][]string{{"#a"}, {"@bob", " x\n", "https://a.b"}}},
		{"@nobody\n\nx", [][]string{{"@nobody"}, {"x"}}},
	} {
		var got [][]string
		for _, para := range (Post{Body: tc.body, Mentions: []string{"bob"}}).Paragraphs() {
			var texts []string
			for _, seg := range para {
				texts = append(texts, seg.Text)
			}
			got = append(got, texts)
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("Paragraphs(%q) = %q; want %q", tc.body, got, tc.want)
		}
	}
}
