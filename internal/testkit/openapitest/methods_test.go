package openapitest

import (
	"slices"
	"testing"
)

// A made-up page of Mastodon's documentation, with the variants that
// ParseMethods reads: a method by "##", one by "###" with an anchor, a
// deprecated and a removed one, a parameter's deprecation (not the
// method's), a long-ago "x.x.x", an API version in parentheses, and
// sections that are not methods.
const page = "## Things {#things}\n\n" +
	"### View things {#get}\n\n```http\nGET /api/v1/things HTTP/1.1\n```\n\n" +
	"**Version history:**\\\n2.1.0 - added\\\n3.5.0 - deprecated `follow` scope\n\n#### Request\n\n" +
	"```http\nGET /api/v1/things HTTP/1.1\nAuthorization: Bearer x\n```\n\n" +
	"## Old thing {{%deprecated%}} {#old}\n\n```http\nPOST /api/v1/things/:id/old?x=1 HTTP/1.1\n```\n\n" +
	"**Version history**:\\\nx.x.x - added\\\n4.0.0 - deprecated. use new\n\n" +
	"## Gone {{%removed%}} {#gone}\n\n```http\nDELETE /api/v1/gone HTTP/1.1\n```\n\n" +
	"**Version:**\\\n1.1 - added\\\n3.0.0 - removed\n\n" +
	"## New {#new}\n\n```http\nPUT /api/v1/things/:id HTTP/1.1\n```\n\n" +
	"**Version history:**\n4.6.0 (`mastodon` [API version](x) 8) - added\\\n\n" +
	"## Not a method {#prose}\n\n```http\nwss://example/api/v1/streaming\n```\n\n## See also\n"

// TestParseMethods checks ParseMethods on the made-up page, and the
// count of its methods by version.
func TestParseMethods(t *testing.T) {
	got, err := ParseMethods("things.md", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	want := []Method{
		{"GET", "/api/v1/things", "2.1.0", "", "", "things.md#get"},
		{"POST", "/api/v1/things/:id/old", "0.0.0", "4.0.0", "", "things.md#old"},
		{"DELETE", "/api/v1/gone", "1.1", "", "3.0.0", "things.md#gone"},
		{"PUT", "/api/v1/things/:id", "4.6.0", "", "", "things.md#new"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseMethods =\n%v\nwant\n%v", got, want)
	}
	back, err := ReadMethodsTSV(append([]byte("# a comment\n"), MethodsTSV(got)...))
	if err != nil || !slices.Equal(back, got) {
		t.Errorf("ReadMethodsTSV(MethodsTSV(m)) = %v, %v; want m", back, err)
	}
	doc := Spec{Paths: map[string]map[string]map[string]any{
		"/api/v1/things":      {"get": {"tags": []any{"things"}}},
		"/api/v1/things/{id}": {"put": {"tags": []any{"empty"}}},
	}}
	for _, c := range []struct {
		v                                string
		documented, real, empty, missing int
	}{{"2.0", 2, 1, 0, 1}, {"2.9", 3, 2, 0, 1}, {"3.0", 2, 2, 0, 0}, {"4.6", 3, 2, 1, 0}} {
		tally := Count(got, Supports(doc, "POST /api/v1/things/{id}/old"), c.v)
		if tally.Documented != c.documented || tally.Count[Real] != c.real || tally.Count[Empty] != c.empty || tally.Count[Missing] != c.missing {
			t.Errorf("Count(%s) = %+v; want %d documented, %d implemented, %d empty, %d missing", c.v, tally, c.documented, c.real, c.empty, c.missing)
		}
	}
	if CompareVersions("4.3.0-beta.2", "4.3.0") >= 0 || CompareVersions("1.1", "1.1.0") != 0 || CompareVersions("4.10", "4.9.9") <= 0 {
		t.Error("CompareVersions orders pre-releases, missing numbers or two-digit numbers wrongly")
	}
}
