package openapitest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Method is one method of Mastodon's client API as its documentation
// (github.com/mastodon/documentation, content/en/methods) lists it: the
// HTTP method and path (Mastodon's spelling, ":id"), the version that
// added it, and the version that deprecated or removed it (empty if
// none), with the page and anchor that document it.
type Method struct {
	Verb, Path, Added, Deprecated, Removed, Doc string
}

// Key is the method as Supports keys a route: the verb and the path,
// each parameter segment (":id" in Mastodon's spelling) written "{}",
// whatever its name.
func (m Method) Key() string {
	return routeKey(m.Verb, m.Path)
}

// routeKey is the key of a route: "GET /a/{}" for "GET /a/:id" or
// "get /a/{name}".
func routeKey(verb, path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = "{}"
		}
	}
	return strings.ToUpper(verb) + " " + strings.Join(segs, "/")
}

// The lines of a method's section that ParseMethods reads.
var (
	sectionLine = regexp.MustCompile(`^(?:## (.*?)\s*(?:\{#([\w-]+)\})?|### (.*?)\s*\{#([\w-]+)\})\s*$`)
	// "4.3.0 - added", "4.6.0 (`mastodon` API version 8) - added",
	// "x.x.x - added" (long ago: 0.0.0).
	historyLine = regexp.MustCompile(`^(\d+(?:\.\d+)*(?:-[\w.]+)?|x\.x\.x)(?: \(.*?\))? - (.*?)\\?$`)
	// a whole method deprecated or removed, not one of its parameters
	// or fields (those are named in backquotes after the word).
	endLine = regexp.MustCompile("^(deprecated|removed)(?:$|[.;,]| in favor| and)")
)

// ParseMethods reads the methods of one page of the documentation's
// methods folder (page is its name, as "accounts.md"): each section
// ("## Title {#anchor}", or "###" with an anchor) whose first ```http block starts with a
// request line, its version history's first line being when it was
// added, and a line "X - deprecated" or "X - removed" (or the heading's
// {{%deprecated%}} or {{%removed%}}) when it ended.
func ParseMethods(page string, text []byte) ([]Method, error) {
	var out []Method
	var cur *Method
	inHTTP, inHistory := false, false
	lines := bufio.NewScanner(bytes.NewReader(text))
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := strings.TrimRight(lines.Text(), " \t")
		switch {
		case sectionLine.MatchString(line):
			if cur != nil && cur.Verb != "" {
				out = append(out, *cur)
			}
			m := sectionLine.FindStringSubmatch(line)
			title, anchor := m[1]+m[3], m[2]+m[4]
			cur, inHTTP, inHistory = &Method{Doc: page + "#" + anchor}, false, false
			if strings.Contains(title, "{{%removed%}}") {
				cur.Removed = "?"
			} else if strings.Contains(title, "{{%deprecated%}}") {
				cur.Deprecated = "?"
			}
		case cur == nil:
		case line == "```http" && cur.Verb == "":
			inHTTP = true
		case inHTTP:
			inHTTP = false
			f := strings.Fields(line)
			if len(f) == 3 && strings.HasPrefix(f[2], "HTTP/") && strings.HasPrefix(f[1], "/") {
				cur.Verb, cur.Path = f[0], strings.SplitN(f[1], "?", 2)[0]
			}
		case strings.HasPrefix(line, "**Version"):
			inHistory = true
		case inHistory:
			m := historyLine.FindStringSubmatch(line)
			if m == nil {
				inHistory = false
				break
			}
			cur.history(m[1], m[2])
		}
	}
	if cur != nil && cur.Verb != "" {
		out = append(out, *cur)
	}
	return out, lines.Err()
}

// history takes one line of a method's version history: the first says
// when it was added; others may say when it was deprecated or removed.
func (m *Method) history(version, what string) {
	if m.Verb == "" {
		return // a section with no request line: not a method
	}
	if version == "x.x.x" {
		version = "0.0.0"
	}
	if m.Added == "" {
		m.Added = version
		return
	}
	if e := endLine.FindStringSubmatch(what); e != nil {
		if e[1] == "removed" {
			m.Removed = version
		} else if m.Deprecated == "" || m.Deprecated == "?" {
			m.Deprecated = version
		}
	}
}

// MethodsTSV writes methods as lines of tab-separated values, with a
// header: method, path, added, deprecated, removed, doc.
func MethodsTSV(methods []Method) []byte {
	var b bytes.Buffer
	b.WriteString("method\tpath\tadded\tdeprecated\tremoved\tdoc\n")
	for _, m := range methods {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Verb, m.Path, m.Added, m.Deprecated, m.Removed, m.Doc)
	}
	return b.Bytes()
}

// ReadMethodsTSV reads what MethodsTSV wrote, skipping lines that start
// with '#' (comments) and the header.
func ReadMethodsTSV(text []byte) ([]Method, error) {
	var out []Method
	for i, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "method\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("line %d: %d fields, want 6", i+1, len(f))
		}
		out = append(out, Method{f[0], f[1], f[2], f[3], f[4], f[5]})
	}
	return out, nil
}

// CompareVersions orders two versions as "4.3.0" or "4.3.0-beta.2": by
// their numbers (missing ones are 0), then a release after its
// pre-releases.
func CompareVersions(a, b string) int {
	an, apre, _ := strings.Cut(a, "-")
	bn, bpre, _ := strings.Cut(b, "-")
	as, bs := strings.Split(an, "."), strings.Split(bn, ".")
	for i := range max(len(as), len(bs)) {
		if c := versionPart(as, i) - versionPart(bs, i); c != 0 {
			return c
		}
	}
	switch {
	case apre == bpre:
		return 0
	case apre == "":
		return 1
	case bpre == "":
		return -1
	}
	return strings.Compare(apre, bpre)
}

func versionPart(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n, _ := strconv.Atoi(parts[i])
	return n
}

// InVersion reports whether a server of version v (as "4.2", meaning
// every 4.2.x) has the method: added in v or before, not removed by it.
func (m Method) InVersion(v string) bool {
	end := v + ".999"
	if m.Added == "" || CompareVersions(m.Added, end) > 0 {
		return false
	}
	return m.Removed == "" || (m.Removed != "?" && CompareVersions(m.Removed, end) > 0)
}

// Admin reports whether the method is of the admin API, for moderators'
// tools rather than apps.
func (m Method) Admin() bool {
	return strings.HasPrefix(m.Path, "/api/v1/admin/") || strings.HasPrefix(m.Path, "/api/v2/admin/")
}

// Support is how a server answers a method.
type Support string

// The kinds of Support: a route that does the method; one that answers
// a fixed empty list (its operation tagged "empty" in the document);
// one that always refuses (tagged "unsupported"); none.
const (
	Real        Support = "implemented"
	Empty       Support = "empty"
	Unsupported Support = "unsupported"
	Missing     Support = "missing"
)

// Supports tells how the document doc says its server answers each
// method, by key (Method.Key, parameters named as they may be); also
// lists routes served elsewhere than
// the document describes (as "GET /oauth/authorize", a web page) that
// do their method for real.
func Supports(doc Spec, also ...string) map[string]Support {
	out := map[string]Support{}
	for path, item := range doc.Paths {
		for verb, op := range item {
			if !slices.Contains(Methods, verb) {
				continue
			}
			s := Real
			tags, _ := op["tags"].([]any)
			if slices.Contains(tags, any("empty")) {
				s = Empty
			} else if slices.Contains(tags, any("unsupported")) {
				s = Unsupported
			}
			out[routeKey(verb, path)] = s
		}
	}
	for _, k := range also {
		verb, path, _ := strings.Cut(k, " ")
		out[routeKey(verb, path)] = Real
	}
	return out
}

// Tally is the count of the methods of one version of Mastodon, by how
// the server answers them, with the methods it lacks or stubs.
type Tally struct {
	Version    string
	Documented int
	Count      map[Support]int
	Lacking    map[Support][]Method // of Empty, Unsupported and Missing
}

// Count tallies the methods that Mastodon's version v has (the admin
// API aside) by how supports says the server answers them.
func Count(methods []Method, supports map[string]Support, v string) Tally {
	t := Tally{Version: v, Count: map[Support]int{}, Lacking: map[Support][]Method{}}
	for _, m := range methods {
		if m.Admin() || !m.InVersion(v) {
			continue
		}
		t.Documented++
		s, ok := supports[m.Key()]
		if !ok {
			s = Missing
		}
		t.Count[s]++
		if s != Real {
			t.Lacking[s] = append(t.Lacking[s], m)
		}
	}
	return t
}
