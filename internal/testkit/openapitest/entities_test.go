package openapitest

import (
	"encoding/json"
	"slices"
	"testing"
)

// A made-up entity page: attributes of the page's entity, a nested hash,
// an optional one, one added to the public API later than to the admin
// API, links to entities, and one of another entity defined beside it.
const entityPage = "## Example\n\n```json\n{}\n```\n\n## Attributes\n\n" +
	"### `id` {#id}\n\n**Type:** String (cast from an integer)\\\n**Version history:**\\\n0.1.0 - added\n\n" +
	"### `count` {#count}\n\n**Type:** {{<nullable>}} Integer or null\\\n**Version history:**\\\n1.0.0 - added\n\n" +
	"### `conf` {#conf}\n\n**Type:** Hash\\\n**Version history:**\\\n4.0.0 - added\n\n" +
	"#### `conf[max]` {#max}\n\n**Type:** Integer\\\n**Version history:**\\\n4.0.0 - added\n\n" +
	"### `late` {#late}\n\n**Type:** String\\\n**Version history:**\\\n3.5.0 - added to admin APIs\n4.3.1 - added to public APIs\n\n" +
	"### `pinned` {{%optional%}} {#pinned}\n\n**Type:** Boolean\\\n**Version history:**\\\n1.6.0 - added\n\n" +
	"### `author` {#author}\n\n**Type:** [Account]({{< relref \"entities/account\" >}})\\\n**Version history:**\\\n0.1.0 - added\n\n" +
	"### `parts` {#parts}\n\n**Type:** Array of [Part](#Part)\\\n**Version history:**\\\n2.0.0 - added\n\n" +
	"## Part attributes {#Part}\n\n### `name` {#Part-name}\n\n**Type:** String\\\n**Version history:**\\\n2.0.0 - added\n\n" +
	"## See also\n\n### `x` {#x}\n\n**Type:** String\\\n**Version history:**\\\n0.1.0 - added\n"

// TestEntities checks ParseEntities on the made-up page, the list's
// round trip, and CheckEntity against a value right and wrong.
func TestEntities(t *testing.T) {
	got := ParseEntities("Thing.md", []byte(entityPage))
	want := []Attribute{
		{"Thing", "id", "string", false, false, "0.1.0", ""},
		{"Thing", "count", "integer", true, false, "1.0.0", ""},
		{"Thing", "conf", "object", false, false, "4.0.0", ""},
		{"Thing", "conf[max]", "integer", false, false, "4.0.0", ""},
		{"Thing", "late", "string", false, false, "4.3.1", ""},
		{"Thing", "pinned", "boolean", false, true, "1.6.0", ""},
		{"Thing", "author", "entity:account", false, false, "0.1.0", ""},
		{"Thing", "parts", "array:entity:Thing#Part", false, false, "2.0.0", ""},
		{"Thing#Part", "name", "string", false, false, "2.0.0", ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseEntities =\n%v\nwant\n%v", got, want)
	}
	entities, err := ReadEntitiesTSV(append([]byte("# a comment\n"), EntitiesTSV(append(got, Attribute{"Account", "acct", "string", false, false, "0.1.0", ""}))...))
	if err != nil || len(entities["Thing"]) != 8 || len(entities["Thing#Part"]) != 1 {
		t.Fatalf("ReadEntitiesTSV(EntitiesTSV(attrs)) = %v, %v", entities, err)
	}
	var right, wrong any
	must(t, json.Unmarshal([]byte(`{"id": "1", "count": null, "conf": {"max": 5}, "author": {"acct": "a"}, "parts": [{"name": "p"}]}`), &right))
	must(t, json.Unmarshal([]byte(`{"id": 1, "conf": {}, "pinned": "yes", "author": {}, "parts": [{"name": 2}]}`), &wrong))
	if m := CheckEntity(entities, "Thing", right, "4.2"); len(m) != 0 {
		t.Errorf("CheckEntity(right, 4.2) = %v; want nothing", m)
	}
	wantWrong := []Mismatch{
		{"$.id", "Thing", "id", "1, want string"},
		{"$.count", "Thing", "count", "missing"},
		{"$.conf.max", "Thing", "conf[max]", "missing"},
		{"$.pinned", "Thing", "pinned", `"yes", want boolean`},
		{"$.author.acct", "Account", "acct", "missing"},
		{"$.parts[0].name", "Thing#Part", "name", "2, want string"},
	}
	if m := CheckEntity(entities, "Thing", wrong, "4.2"); !slices.Equal(m, wantWrong) {
		t.Errorf("CheckEntity(wrong, 4.2) =\n%v\nwant\n%v", m, wantWrong)
	}
	if m := CheckEntity(entities, "Thing", right, "4.4"); !slices.Equal(m, []Mismatch{{"$.late", "Thing", "late", "missing"}}) {
		t.Errorf("CheckEntity(right, 4.4) = %v; want late missing", m)
	}
}
