package parts_test

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/web/parts"
)

// TestEscapeAsTemplates writes every byte, some runes and invalid
// UTF-8, alone and within text, with Escape and through html/template in
// each context Escape stands for: text, a quoted attribute value, and
// RCDATA (<title>, <textarea>).
func TestEscapeAsTemplates(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(template.New("").Parse(`<p>{{.}}</p><b title="{{.}}"></b><b title='{{.}}'></b><title>{{.}}</title><textarea>{{.}}</textarea>`))
	var values []string
	for c := range 256 {
		values = append(values, string(rune(c)), "a"+string([]byte{byte(c)})+"b")
	}
	values = append(values, "", `a"b'c<d>e&f+g`, "\ufdd0\ue000é", "\xff\xfe<", strings.Repeat("&", 20))
	for _, s := range values {
		var want bytes.Buffer
		must.OK(t, tmpl.Execute(&want, s))
		e := parts.Escape(s)
		if got := fmt.Sprintf(`<p>%s</p><b title="%s"></b><b title='%s'></b><title>%s</title><textarea>%s</textarea>`, e, e, e, e, e); got != want.String() {
			t.Errorf("Escape(%q) = %q: writes\n%s\nhtml/template\n%s", s, e, got, want.String())
		}
	}
}

// TestPlainURL checks that html/template writes a plain URL (PlainURL)
// unchanged in an href and a src, and that those it refuses are the
// ones html/template changes, but for the reserved characters it keeps.
func TestPlainURL(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(template.New("").Parse(`<a href="{{.}}"></a><img src="{{.}}">`))
	urls := []string{"", "/", "/?before=123", "/u/a%22b?after=5", "/u/a%2", "/u/a%2g", "/u/%", "/timeline?before=1", "/tag/go-1.2_~x"}
	for c := range 128 {
		urls = append(urls, "/u/x"+string(rune(c))+"y")
	}
	for _, u := range urls {
		var got bytes.Buffer
		must.OK(t, tmpl.Execute(&got, u))
		same := got.String() == fmt.Sprintf(`<a href="%s"></a><img src="%s">`, u, u)
		if parts.PlainURL(u) && !same {
			t.Errorf("PlainURL(%q), but html/template writes %s", u, got.String())
		}
		if !parts.PlainURL(u) && same && !strings.ContainsAny(u, "!#$*,:;@[]") { // reserved: kept, but refused to be safe
			t.Errorf("%q refused, but html/template writes it unchanged", u)
		}
	}
}

// TestSplit splits text with markers next to each other, at its ends,
// and text that looks like one, and writes it back with values.
func TestSplit(t *testing.T) {
	t.Parallel()
	m := parts.Marker
	for _, tc := range []struct{ html, want string }{
		{"no hole", "no hole"},
		{m(0), "[zero]"},
		{"a" + m(1) + m(0) + "b" + m(1), "a[one][zero]b[one]"},
		{"_hole _hole1 _hole1x_ _hole-1_ _hole01_ " + m(2), "_hole _hole1 _hole1x_ _hole-1_ _hole01_ [two]"},
	} {
		var b bytes.Buffer
		values := []string{"[zero]", "[one]", "[two]"}
		must.OK(t, parts.Split(tc.html).Write(&b, func(hole int) error {
			b.WriteString(values[hole])
			return nil
		}))
		if b.String() != tc.want {
			t.Errorf("%q written back as %q; want %q", tc.html, b.String(), tc.want)
		}
	}
}
