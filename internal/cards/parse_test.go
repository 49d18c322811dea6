package cards_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retwis/retwis/internal/cards"
)

func TestParse(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://example.com/a/page.html")
	long := strings.Repeat("word ", 200)
	for _, c := range []struct {
		name, page string
		want       cards.Page
	}{
		{"OpenGraph", `<html><head><meta property="og:title" content="The title">
			<meta property="og:description" content="What it says">
			<meta property="og:image" content="https://cdn.example.com/p.jpg"><meta property="og:image:width" content="800">
			<meta property="og:image:height" content="600"><meta property="og:type" content="article">
			<meta property="og:site_name" content="Example"><title>Ignored</title></head><body>`,
			cards.Page{Title: "The title", Description: "What it says", Type: "article", SiteName: "Example",
				Image: "https://cdn.example.com/p.jpg", ImageWidth: 800, ImageHeight: 600}},
		{"twitter fallbacks", `<head><meta name="twitter:title" content="T"><meta name="twitter:description" content="D">
			<meta name="twitter:image" content="/img/x.png"><meta name="description" content="not this">`,
			cards.Page{Title: "T", Description: "D", Image: "https://example.com/img/x.png"}},
		{"title only", `<!doctype html><html><head><title>
				Just   a
				title </title></head><body><p>text</p></body></html>`,
			cards.Page{Title: "Just a title"}},
		{"meta description and author", `<title>T</title><meta name="Description" content="About it"><meta name="author" content="Ann">`,
			cards.Page{Title: "T", Description: "About it", Author: "Ann"}},
		{"oEmbed discovery", `<head><title>V</title><link rel="alternate" type="text/xml+oembed" href="/x.xml">
			<link rel="alternate" type="application/json+oembed" href="/oembed?url=v&amp;format=json"></head>`,
			cards.Page{Title: "V", OEmbed: "https://example.com/oembed?url=v&format=json"}},
		{"entities decoded", `<meta property="og:title" content="Fish &amp; chips &#8212; &quot;good&quot;"><title>x &lt; y</title>`,
			cards.Page{Title: `Fish & chips — "good"`}},
		{"title with entities", `<title>x &lt; y &amp;amp;</title>`, cards.Page{Title: "x < y &amp;"}},
		{"relative image", `<meta property="og:image" content="../i.png"><title>T</title>`,
			cards.Page{Title: "T", Image: "https://example.com/i.png"}},
		{"image of another scheme", `<meta property="og:image" content="javascript:alert(1)"><meta property="og:image:width" content="9"><title>T</title>`,
			cards.Page{Title: "T"}},
		{"data image", `<meta property="og:image" content="data:image/png;base64,AAAA"><title>T</title>`, cards.Page{Title: "T"}},
		{"first of each", `<meta property="og:title" content="One"><meta property="og:title" content="Two">`, cards.Page{Title: "One"}},
		{"stops at the body", `<head><title>T</title></head><body><meta property="og:description" content="late">`, cards.Page{Title: "T"}},
		{"bounded", `<meta property="og:title" content="` + long + `"><meta property="og:description" content="` + long + long + `">`,
			cards.Page{Title: strings.TrimSpace(long[:199*1]) + "…", Description: strings.TrimSpace(long[:499]) + "…"}},
		{"malformed", `<head><title>Unclosed <meta property="og:title" content="x`, cards.Page{Title: `Unclosed <meta property="og:title" content="x`}},
		{"malformed attributes", `<meta property=og:title content=Bare><meta property="og:description" content='single'>`,
			cards.Page{Title: "Bare", Description: "single"}},
		{"control characters and bad UTF-8", "<title>a\x00b\x07c \xff d</title>", cards.Page{Title: "a\uFFFDb c \uFFFD d"}},
		{"not HTML", "\x89PNG\r\n\x1a\n\x00\x00", cards.Page{}},
	} {
		if got := cards.Parse(strings.NewReader(c.page), base); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

// TestParseHugePage: a head that never ends is read only so far, and
// what it says past that is not seen.
func TestParseHugePage(t *testing.T) {
	t.Parallel()
	page := "<head><title>Big</title>" + strings.Repeat(`<meta name="x" content="padding padding">`, 100_000) +
		`<meta property="og:description" content="too far">`
	got := cards.Parse(strings.NewReader(page), nil)
	if got != (cards.Page{Title: "Big"}) {
		t.Errorf("got %+v", got)
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  a \t\n b\u00a0c\u2003d  ", 10, "a b c d"},
		{"abcdef", 4, "abc…"},
		{"ab cdef", 4, "ab…"},
		{"ééééé", 5, "ééééé"},
	} {
		if got := cards.Clean(c.in, c.max); got != c.want {
			t.Errorf("Clean(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// FuzzParse: any page parses, into valid, bounded text and absolute
// http(s) URLs.
func FuzzParse(f *testing.F) {
	f.Add(`<head><meta property="og:title" content="T"><meta property="og:image" content="/i.png"><title>x</title>` +
		`<link rel="alternate" type="application/json+oembed" href="o.json"></head>`)
	f.Add("<title>a &amp; b</title><meta name=description content=d>")
	f.Add("<meta property=\"og:image:width\" content=\"-1\"><title>\xff</title>")
	base, _ := url.Parse("https://example.com/dir/")
	f.Fuzz(func(t *testing.T, page string) {
		p := cards.Parse(strings.NewReader(page), base)
		for _, s := range []string{p.Title, p.Description, p.Type, p.SiteName, p.Author} {
			if !utf8.ValidString(s) || s != strings.TrimSpace(s) || strings.ContainsAny(s, "\n\t\x00") {
				t.Errorf("text %q", s)
			}
		}
		if utf8.RuneCountInString(p.Title) > cards.MaxTitle || utf8.RuneCountInString(p.Description) > cards.MaxDescription {
			t.Errorf("unbounded: %+v", p)
		}
		for _, u := range []string{p.Image, p.OEmbed} {
			if pu, err := url.Parse(u); u != "" && (err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "") {
				t.Errorf("URL %q", u)
			}
		}
		if p.ImageWidth < 0 || p.ImageHeight < 0 {
			t.Errorf("size %dx%d", p.ImageWidth, p.ImageHeight)
		}
	})
}
