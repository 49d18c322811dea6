package openapitest

import (
	"encoding/json"
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
		"/api/v1/things":         {"get": {"tags": []any{"things"}}},
		"/api/v1/things/{thing}": {"put": {"tags": []any{"empty"}}},
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

// TestValidate checks Validate and ResponseSchema on a made-up document:
// a body that matches, and one wrong in each way it tells.
func TestValidate(t *testing.T) {
	var root any
	doc := `{"paths": {"/a/{id}": {"get": {"responses": {"200": {"$ref": "#/components/responses/A"}}}},
		"/a/b": {"get": {"responses": {"204": {"description": "none"}}}}},
	"components": {"responses": {"A": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}},
		"schemas": {"A": {"type": "object", "required": ["id", "n"], "properties": {
			"id": {"type": "string"}, "n": {"type": "integer"}, "kind": {"enum": ["x", "y"]},
			"at": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "list": {"type": "array", "maxItems": 1, "items": {"type": "boolean"}},
			"map": {"type": "object", "additionalProperties": {"type": "number"}}}}}}}`
	if err := json.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	schema, found := ResponseSchema(root, "GET", "/a/1", 200)
	if !found || schema == nil {
		t.Fatalf("ResponseSchema(GET /a/1, 200) = %v, %v; want A's", schema, found)
	}
	if s, found := ResponseSchema(root, "GET", "/a/b", 204); !found || s != nil {
		t.Errorf("ResponseSchema(GET /a/b, 204) = %v, %v; want no body, found (the literal path before /a/{id})", s, found)
	}
	for _, c := range [][2]string{{"POST", "/a/1"}, {"GET", "/b"}, {"GET", "/a/1/c"}} {
		if _, found := ResponseSchema(root, c[0], c[1], 200); found {
			t.Errorf("ResponseSchema found %s %s, which the document lacks", c[0], c[1])
		}
	}
	if s, found := ResponseSchema(root, "GET", "/a/1", 404); !found || s != nil {
		t.Errorf("ResponseSchema(GET /a/1, 404) = %v, %v; want no body, found", s, found)
	}
	var good, bad any
	must(t, json.Unmarshal([]byte(`{"id": "1", "n": 2, "kind": "x", "at": null, "list": [true], "map": {"a": 1.5}, "extra": 1}`), &good))
	must(t, json.Unmarshal([]byte(`{"id": 1, "n": 2.5, "kind": "z", "at": 3, "list": [true, "no"], "map": {"a": "b"}}`), &bad))
	if errs := Validate(root, schema, good); len(errs) != 0 {
		t.Errorf("Validate(good) = %v; want nothing", errs)
	}
	want := []string{`$.at: 3 matches none of anyOf's schemas`, `$.id: 1, want type string`, `$.kind: "z" is not one of [x y]`,
		`$.list: 2 items, at most 1`, `$.list[1]: "no", want type boolean`, `$.map.a: "b", want type number`, `$.n: 2.5, want type integer`}
	if errs := Validate(root, schema, bad); !slices.Equal(errs, want) {
		t.Errorf("Validate(bad) =\n%q\nwant\n%q", errs, want)
	}
	if errs := Validate(root, schema, map[string]any{"id": "1"}); !slices.Equal(errs, []string{`$: lacks the required "n"`}) {
		t.Errorf("Validate without n = %q", errs)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
