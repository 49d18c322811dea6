package openapitest

import (
	"fmt"
	"slices"
	"strings"
)

// Validate checks the JSON value v (as encoding/json decodes into an
// any) against schema, a schema of the document root (both plain JSON
// values, as Load returns root): the types it names, the properties an
// object requires, the items of an array, its maxItems, an enum; a
// $ref is followed, and v must match one of anyOf's or oneOf's
// schemas. Properties the schema does not name are allowed, as a
// client ignores them (or must match additionalProperties, if given). It returns what does not match, each as "at:
// what" (at being the path of v, "$" its root), or nothing.
func Validate(root, schema, v any) []string {
	var errs []string
	validate(root, schema, v, "$", &errs)
	return errs
}

func validate(root, schema, v any, at string, errs *[]string) {
	s, _ := schema.(map[string]any)
	if ref, ok := s["$ref"].(string); ok {
		target, err := resolveRef(root, ref)
		if err != nil {
			*errs = append(*errs, fmt.Sprintf("%s: %v", at, err))
			return
		}
		validate(root, target, v, at, errs)
		return
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && !slices.ContainsFunc(alts, func(alt any) bool { return len(Validate(root, alt, v)) == 0 }) {
			*errs = append(*errs, fmt.Sprintf("%s: %s matches none of %s's schemas", at, brief(v), k))
			return
		}
	}
	if !typeMatches(s["type"], v) {
		*errs = append(*errs, fmt.Sprintf("%s: %s, want type %v", at, brief(v), s["type"]))
		return
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		*errs = append(*errs, fmt.Sprintf("%s: %s is not one of %v", at, brief(v), enum))
	}
	switch x := v.(type) {
	case map[string]any:
		validateObject(root, s, x, at, errs)
	case []any:
		if m, ok := s["maxItems"].(float64); ok && float64(len(x)) > m {
			*errs = append(*errs, fmt.Sprintf("%s: %d items, at most %v", at, len(x), m))
		}
		if items, ok := s["items"]; ok {
			for i, e := range x {
				validate(root, items, e, fmt.Sprintf("%s[%d]", at, i), errs)
			}
		}
	}
}

// validateObject checks an object's required properties and those the
// schema describes.
func validateObject(root any, s, x map[string]any, at string, errs *[]string) {
	req, _ := s["required"].([]any)
	for _, r := range req {
		if _, ok := x[fmt.Sprint(r)]; !ok {
			*errs = append(*errs, fmt.Sprintf("%s: lacks the required %q", at, r))
		}
	}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(x))
	for k := range x {
		names = append(names, k)
	}
	slices.Sort(names)
	more, _ := s["additionalProperties"].(map[string]any)
	for _, k := range names {
		if p, ok := props[k]; ok {
			validate(root, p, x[k], at+"."+k, errs)
		} else if more != nil {
			validate(root, more, x[k], at+"."+k, errs)
		}
	}
}

// typeMatches reports whether v is of the type a schema names (a name
// or a list of names; none matches anything).
func typeMatches(typ, v any) bool {
	var names []string
	switch t := typ.(type) {
	case nil:
		return true
	case string:
		names = []string{t}
	case []any:
		for _, n := range t {
			names = append(names, fmt.Sprint(n))
		}
	}
	return slices.ContainsFunc(names, func(name string) bool { return isType(name, v) })
}

func isType(name string, v any) bool {
	switch x := v.(type) {
	case nil:
		return name == "null"
	case bool:
		return name == "boolean"
	case string:
		return name == "string"
	case float64:
		return name == "number" || name == "integer" && x == float64(int64(x))
	case []any:
		return name == "array"
	case map[string]any:
		return name == "object"
	}
	return false
}

// resolveRef follows a local reference, "#/a/b", in the document root.
func resolveRef(root any, ref string) (any, error) {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not local", ref)
	}
	cur := root
	for _, p := range strings.Split(path, "/") {
		m, _ := cur.(map[string]any)
		if cur, ok = m[strings.NewReplacer("~1", "/", "~0", "~").Replace(p)]; !ok {
			return nil, fmt.Errorf("$ref %q: no %q", ref, p)
		}
	}
	return cur, nil
}

// brief shows a JSON value in a message: short, its kind if long.
func brief(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 60 {
		return fmt.Sprintf("a %T", v)
	}
	return s
}

// ResponseSchema returns the JSON schema that the document root gives
// the answer status of method on path (a request's path, as
// "/api/v1/statuses/1": the document's path that matches it with the
// fewest parameters is the one), and whether the document has the
// operation; the schema is nil if the answer has no JSON body.
func ResponseSchema(root any, method, path string, status int) (schema any, found bool) {
	paths, _ := root.(map[string]any)["paths"].(map[string]any)
	best, params := "", -1
	for tmpl := range paths {
		if n, ok := matchPath(tmpl, path); ok && (params < 0 || n < params) {
			best, params = tmpl, n
		}
	}
	item, _ := paths[best].(map[string]any)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if params < 0 || !ok {
		return nil, false
	}
	responses, _ := op["responses"].(map[string]any)
	resp := responses[fmt.Sprint(status)]
	if m, _ := resp.(map[string]any); m != nil && m["$ref"] != nil {
		resp, _ = resolveRef(root, fmt.Sprint(m["$ref"]))
	}
	r, _ := resp.(map[string]any)
	content, _ := r["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	return media["schema"], true
}

// matchPath reports whether path is one of the document's path
// template tmpl ("/a/{id}"), and with how many parameters.
func matchPath(tmpl, path string) (params int, ok bool) {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return 0, false
	}
	for i, t := range ts {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") && ps[i] != "" {
			params++
		} else if t != ps[i] {
			return 0, false
		}
	}
	return params, true
}
