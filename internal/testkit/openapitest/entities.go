package openapitest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Attribute is one attribute of an entity of Mastodon's API as its
// documentation (content/en/entities) gives it: the entity ("Account";
// "Account#Field" for one a page defines beside its own), the name
// ("source[note]": a hash's key in brackets, "[]" an array's items), the
// JSON type ("string", "integer", "number", "boolean", "object",
// "entity:Status", "array:" of one of those, or "" if the page's words
// say no one type), whether it may be null or left out, and the version
// that added it, and removed it if one did.
type Attribute struct {
	Entity, Name, Type string
	Nullable, Optional bool
	Added, Removed     string
}

var (
	entityLine    = regexp.MustCompile("^## (.*?)\\s*(?:\\{#([\\w-]+)\\})?\\s*$")
	attributeLine = regexp.MustCompile("^#{3,5} `([^`]+)`(.*)$")
	entityLink    = regexp.MustCompile(`^\[[^\]]*\]\((?:\{\{< ?relref "/?entities/(\w+)(?:#(\w+))?" ?>\}\}|#(\w+))\)`)
)

// ParseEntities reads the attributes of the entities one page of the
// documentation's entities folder defines (page is its name, as
// "Account.md"): the page's under "## Attributes", and those of each
// other section ("## Field entity attributes {#Field}") as the entity
// "Account#Field".
func ParseEntities(page string, text []byte) []Attribute {
	file := strings.TrimSuffix(page, ".md")
	var out []Attribute
	entity := ""
	var cur *Attribute
	inHistory := false
	lines := bufio.NewScanner(bytes.NewReader(text))
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := strings.TrimRight(lines.Text(), " \t")
		switch {
		case entityLine.MatchString(line):
			out, cur = flushAttribute(out, cur), nil
			m := entityLine.FindStringSubmatch(line)
			switch {
			case m[1] == "Attributes":
				entity = file
			case m[2] != "" && m[1] != "Example" && !strings.HasPrefix(m[1], "See also"):
				entity = file + "#" + m[2]
			default:
				entity = ""
			}
		case entity != "" && attributeLine.MatchString(line):
			out = flushAttribute(out, cur)
			m := attributeLine.FindStringSubmatch(line)
			cur = &Attribute{Entity: entity, Name: m[1], Optional: strings.Contains(m[2], "optional")}
			if strings.Contains(m[2], "removed") {
				cur.Removed = "?"
			}
			inHistory = false
		case cur == nil:
		case strings.HasPrefix(line, "**Type:**"):
			cur.Type, cur.Nullable, cur.Optional = attributeType(strings.TrimSuffix(strings.TrimPrefix(line, "**Type:**"), "\\"), file, cur.Optional)
		case strings.HasPrefix(line, "**Version"):
			inHistory = true
		case inHistory:
			m := historyLine.FindStringSubmatch(line)
			if m == nil {
				inHistory = false
				break
			}
			switch {
			case cur.Added == "" || strings.HasPrefix(m[2], "added to public"): // not to the admin API's alone
				cur.Added = strings.Replace(m[1], "x.x.x", "0.0.0", 1)
			case strings.HasPrefix(m[2], "removed"):
				cur.Removed = m[1]
			}
		}
	}
	return flushAttribute(out, cur)
}

// flushAttribute appends the attribute read, if it is one.
func flushAttribute(out []Attribute, a *Attribute) []Attribute {
	if a == nil || a.Added == "" {
		return out
	}
	return append(out, *a)
}

// attributeType reads a "**Type:**" line's words (of the page file).
func attributeType(words, file string, optional bool) (typ string, nullable, opt bool) {
	words = strings.TrimSpace(words)
	for _, mark := range []string{"{{<nullable>}}", "{{%nullable%}}"} {
		if w, ok := strings.CutPrefix(words, mark); ok {
			words, nullable = strings.TrimSpace(w), true
		}
	}
	for _, mark := range []string{"{{<optional>}}", "{{%optional%}}"} {
		if w, ok := strings.CutPrefix(words, mark); ok {
			words, optional = strings.TrimSpace(w), true
		}
	}
	if strings.Contains(words, " or null") || strings.Contains(words, ", or null") {
		nullable = true
	}
	prefix := ""
	if w, ok := strings.CutPrefix(words, "Array of "); ok {
		prefix, words = "array:", w
	}
	if m := entityLink.FindStringSubmatch(words); m != nil {
		target := m[1]
		switch {
		case m[3] != "":
			target = file + "#" + m[3]
		case m[2] != "":
			target += "#" + m[2]
		}
		return prefix + "entity:" + target, nullable, optional
	}
	for _, t := range [][2]string{{"String", "string"}, {"Integer", "integer"}, {"integer", "integer"}, {"Boolean", "boolean"},
		{"Float", "number"}, {"Number", "number"}, {"Hash", "object"}, {"Array", "array"}} {
		if strings.HasPrefix(words, t[0]) && !strings.Contains(words, " or [") {
			return prefix + t[1], nullable, optional
		}
	}
	return "", nullable, optional
}

// EntitiesTSV writes attributes as lines of tab-separated values, with
// a header.
func EntitiesTSV(attrs []Attribute) []byte {
	var b bytes.Buffer
	b.WriteString("entity\tattribute\ttype\tnullable\toptional\tadded\tremoved\n")
	for _, a := range attrs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%t\t%t\t%s\t%s\n", a.Entity, a.Name, a.Type, a.Nullable, a.Optional, a.Added, a.Removed)
	}
	return b.Bytes()
}

// ReadEntitiesTSV reads what EntitiesTSV wrote (lines starting with
// '#' are comments), by entity.
func ReadEntitiesTSV(text []byte) (map[string][]Attribute, error) {
	out := map[string][]Attribute{}
	for i, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "entity\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("line %d: %d fields, want 7", i+1, len(f))
		}
		a := Attribute{f[0], f[1], f[2], f[3] == "true", f[4] == "true", f[5], f[6]}
		out[a.Entity] = append(out[a.Entity], a)
	}
	return out, nil
}

// Mismatch is where a value differs from the entity it should be: the
// path of the value (At), the attribute of which entity, and what is
// wrong.
type Mismatch struct{ At, Entity, Attribute, What string }

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %s (%s's %q)", m.At, m.What, m.Entity, m.Attribute)
}

// CheckEntity checks v, a JSON value as encoding/json decodes it, as the
// entity named entity of a server of Mastodon's version version ("4.2"):
// every attribute that version has and that is not optional is present
// (unless what holds it is null or absent), each of its type (or null
// if nullable), and the entities it holds likewise. It returns where
// it does not match.
func CheckEntity(entities map[string][]Attribute, entity string, v any, version string) []Mismatch {
	var out []Mismatch
	checkEntity(entities, entity, v, version, "$", &out)
	return out
}

func checkEntity(entities map[string][]Attribute, entity string, v any, version, at string, out *[]Mismatch) {
	for _, a := range entityAttributes(entities, entity) {
		if !(Method{Added: a.Added, Removed: a.Removed}).InVersion(version) {
			continue
		}
		for _, f := range attributeValues(v, a.Name, at) {
			switch {
			case !f.present && !a.Optional:
				*out = append(*out, Mismatch{f.at, a.Entity, a.Name, "missing"})
			case !f.present || f.value == nil && (a.Nullable || a.Optional):
			default:
				checkType(entities, a, f.value, version, f.at, out)
			}
		}
	}
}

// entityAttributes returns the attributes of the entity named name,
// which a page's link may spell in lower case ("entities/status").
func entityAttributes(entities map[string][]Attribute, name string) []Attribute {
	if attrs, ok := entities[name]; ok {
		return attrs
	}
	for k, attrs := range entities {
		if strings.EqualFold(k, name) {
			return attrs
		}
	}
	return nil
}

// checkType checks the value of an attribute against its type.
func checkType(entities map[string][]Attribute, a Attribute, v any, version, at string, out *[]Mismatch) {
	typ := a.Type
	item, isArray := strings.CutPrefix(typ, "array:")
	values := []any{v}
	if isArray {
		list, ok := v.([]any)
		if !ok {
			*out = append(*out, Mismatch{at, a.Entity, a.Name, brief(v) + ", want an array"})
			return
		}
		values, typ = list, item
	}
	for i, e := range values {
		where := at
		if isArray {
			where = fmt.Sprintf("%s[%d]", at, i)
		}
		if name, ok := strings.CutPrefix(typ, "entity:"); ok {
			if _, isObject := e.(map[string]any); !isObject {
				*out = append(*out, Mismatch{where, a.Entity, a.Name, brief(e) + ", want the entity " + name})
			} else {
				checkEntity(entities, name, e, version, where, out)
			}
			continue
		}
		if typ != "" && !isType(typ, e) && !(typ == "number" && isType("integer", e)) {
			*out = append(*out, Mismatch{where, a.Entity, a.Name, fmt.Sprintf("%s, want %s", brief(e), typ)})
		}
	}
}

// found is a value an attribute's name leads to, or its absence.
type found struct {
	at      string
	value   any
	present bool
}

// attributeValues follows an attribute's name ("a[b][]" : the key b of
// a, each item of it) in v, and returns where each value is, if it is;
// a hash or array on the way that is absent or null leads nowhere.
func attributeValues(v any, name, at string) []found {
	key, rest, _ := strings.Cut(name, "[")
	cur := []found{{at, v, true}}
	keys := []string{key}
	for rest != "" {
		k, r, _ := strings.Cut(rest, "]")
		keys, rest = append(keys, k), strings.TrimPrefix(r, "[")
	}
	for i, k := range keys {
		var next []found
		for _, c := range cur {
			switch x := c.value.(type) {
			case map[string]any:
				if k == "" {
					break
				}
				val, ok := x[k]
				if !ok && i < len(keys)-1 {
					continue // what would hold it is absent: its own attribute says whether it may be
				}
				next = append(next, found{c.at + "." + k, val, ok})
			case []any:
				if k != "" {
					break
				}
				for j, e := range x {
					next = append(next, found{fmt.Sprintf("%s[%d]", c.at, j), e, true})
				}
			}
		}
		cur = next
	}
	return cur
}
