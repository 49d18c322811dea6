package api

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// The count of Mastodon's client-API methods that retwis implements,
// against the method list of Mastodon's documentation, kept in
// docs/mastodon-methods.tsv (scripts/api-methods.sh makes it anew from
// a checkout of github.com/mastodon/documentation, and prints the
// report of TestMastodonMethods).

var (
	mastodonDocs = flag.String("mastodon-docs", "", "a checkout of github.com/mastodon/documentation: write docs/mastodon-methods.tsv and docs/mastodon-entities.tsv anew from its content/en/methods and entities")
	methodReport = flag.String("methods-report", "", "versions of Mastodon (as 4.2,4.3) to log the count of methods of, with the methods retwis lacks or stubs")
)

// methodsFile is the committed method list; entitiesFile the
// attributes of the entities.
const (
	methodsFile  = "../../docs/mastodon-methods.tsv"
	entitiesFile = "../../docs/mastodon-entities.tsv"
)

// methodsHeader is the comment that heads the method list.
const methodsHeader = `# The methods of Mastodon's client API, as github.com/mastodon/documentation
# lists them in content/en/methods (one section per method: the request
# line, the version history: added, deprecated, removed), admin API
# included. Made by scripts/api-methods.sh from the documentation's
# commit %s; do not edit by hand.
`

// entitiesHeader is the comment that heads the entities' attributes.
const entitiesHeader = `# The attributes of the entities of Mastodon's client API, as
# github.com/mastodon/documentation gives them in content/en/entities
# (one section per attribute: the type, nullable or optional, the
# version history), which TestClientReplays checks the answers against.
# Made by scripts/api-methods.sh from the documentation's commit %s;
# do not edit by hand.
`

// servedElsewhere are the methods retwis implements that the client
// API's document does not name as their own routes: the authorization
// page is internal/web's; the four reads of a filter's keywords and
// statuses, which Go's mux cannot hold as four patterns (a filter's
// /keywords and /keywords/{id} overlap), internal/api/filters serves from
// one, GET /api/v2/filters/{filter_id}/{what} (TestFiltersAPI calls each).
var servedElsewhere = []string{"GET /oauth/authorize",
	"GET /api/v2/filters/:filter_id/keywords", "GET /api/v2/filters/:filter_id/statuses",
	"GET /api/v2/filters/keywords/:id", "GET /api/v2/filters/statuses/:id"}

// readmeCount is how the README states a count: "N of M methods of
// Mastodon X.Y", which may be broken across lines.
var readmeCount = regexp.MustCompile(`(\d+)\s+of\s+(\d+)\s+methods\s+of\s+Mastodon\s+(\d+\.\d+)`)

// TestMastodonMethods keeps the counts the README states true: each
// "N of M methods of Mastodon X.Y" says how many of the methods that
// Mastodon X.Y documents (the admin API aside) openapi.json's routes
// implement for real (not answering an empty list or always refusing).
// With -mastodon-docs it first writes the method list anew; with
// -methods-report it logs the counts and what is lacking.
func TestMastodonMethods(t *testing.T) {
	t.Parallel()
	if *mastodonDocs != "" {
		writeMethods(t, *mastodonDocs)
		writeEntities(t, *mastodonDocs)
	}
	text, err := os.ReadFile(methodsFile)
	if err != nil {
		t.Fatal(err)
	}
	methods, err := openapitest.ReadMethodsTSV(text)
	if err != nil {
		t.Fatalf("%s: %v", methodsFile, err)
	}
	doc, _ := openapitest.Load(t, openAPI)
	supports := openapitest.Supports(doc, servedElsewhere...)
	for _, v := range strings.FieldsFunc(*methodReport, func(r rune) bool { return r == ',' || r == ' ' }) {
		t.Log(methodsReport(openapitest.Count(methods, supports, v)))
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	claims := readmeCount.FindAllSubmatch(readme, -1)
	if len(claims) == 0 {
		t.Error(`README.md states no count as "N of M methods of Mastodon X.Y"`)
	}
	for _, c := range claims {
		tally := openapitest.Count(methods, supports, string(c[3]))
		said := strings.Join(strings.Fields(string(c[0])), " ")
		if want := fmt.Sprintf("%d of %d methods of Mastodon %s", tally.Count[openapitest.Real], tally.Documented, c[3]); said != want {
			t.Errorf("README.md says %q; the count is %q (scripts/api-methods.sh report %s lists what is lacking)", said, want, c[3])
		}
	}
}

// writeMethods writes docs/mastodon-methods.tsv anew from the method
// pages of the documentation checked out at dir.
func writeMethods(t *testing.T, dir string) {
	pages, err := filepath.Glob(filepath.Join(dir, "content/en/methods/*.md"))
	if err == nil && len(pages) == 0 {
		err = fmt.Errorf("no content/en/methods/*.md in %s", dir)
	}
	more, _ := filepath.Glob(filepath.Join(dir, "content/en/methods/*/*.md"))
	var all []openapitest.Method
	for _, p := range append(pages, more...) {
		if err != nil {
			break
		}
		var text []byte
		if text, err = os.ReadFile(p); err == nil {
			var ms []openapitest.Method
			rel, _ := filepath.Rel(filepath.Join(dir, "content/en/methods"), p)
			ms, err = openapitest.ParseMethods(filepath.ToSlash(rel), text)
			all = append(all, ms...)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(all, func(a, b openapitest.Method) int { return strings.Compare(a.Path+" "+a.Verb, b.Path+" "+b.Verb) })
	out := append(fmt.Appendf(nil, methodsHeader, docsCommit()), openapitest.MethodsTSV(all)...)
	if err := os.WriteFile(methodsFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeEntities writes docs/mastodon-entities.tsv anew from the entity
// pages of the documentation checked out at dir.
func writeEntities(t *testing.T, dir string) {
	pages, err := filepath.Glob(filepath.Join(dir, "content/en/entities/*.md"))
	if err == nil && len(pages) == 0 {
		err = fmt.Errorf("no content/en/entities/*.md in %s", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var all []openapitest.Attribute
	for _, p := range pages {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, openapitest.ParseEntities(filepath.Base(p), text)...)
	}
	out := append(fmt.Appendf(nil, entitiesHeader, docsCommit()), openapitest.EntitiesTSV(all)...)
	if err := os.WriteFile(entitiesFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// docsCommit is the commit of the documentation the lists are made from,
// as scripts/api-methods.sh says.
func docsCommit() string {
	if c := os.Getenv("MASTODON_DOCS_COMMIT"); c != "" {
		return c
	}
	return "(unknown)"
}

// methodsReport spells out a tally: the counts, then the methods lacking
// by kind.
func methodsReport(t openapitest.Tally) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mastodon %s: %d of %d methods implemented; %d answer an empty list, %d always refuse, %d missing\n",
		t.Version, t.Count[openapitest.Real], t.Documented, t.Count[openapitest.Empty], t.Count[openapitest.Unsupported], t.Count[openapitest.Missing])
	for _, s := range []openapitest.Support{openapitest.Empty, openapitest.Unsupported, openapitest.Missing} {
		for _, m := range t.Lacking[s] {
			fmt.Fprintf(&b, "  %-11s %-6s %-55s added %s%s\n", s, m.Verb, m.Path, m.Added, ended(m))
		}
	}
	return b.String()
}

// ended says when a method was deprecated or removed, if it was.
func ended(m openapitest.Method) string {
	switch {
	case m.Removed != "":
		return ", removed " + m.Removed
	case m.Deprecated != "":
		return ", deprecated " + m.Deprecated
	}
	return ""
}
