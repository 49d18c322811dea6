package parts_test

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/web/parts"
)

// TestBodyHTML: a post's paragraphs are <p>, its single line breaks
// <br>, its text escaped, line by line, and a post of one line is one
// paragraph.
func TestBodyHTML(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"hello", "<p>hello</p>"},
		{"one\ntwo", "<p>one<br>two</p>"},
		{"one\n\ntwo\nthree", "<p>one</p><p>two<br>three</p>"},
		{"a <b> & \"c\"\n'd' </p>", "<p>a &lt;b&gt; &amp; &#34;c&#34;<br>&#39;d&#39; &lt;/p&gt;</p>"},
		{"#tag\n\n@bob hi", `<p><a class="tag" href="/tag/tag"><bdi>#tag</bdi></a></p><p><a class="mention" href="/u/bob"><bdi>@bob</bdi></a> hi</p>`},
		{"see\nhttps://example.com/a\nthen", `<p>see<br><a href="https://example.com/a" rel="nofollow noopener ugc"><bdi>example.com/a</bdi></a><br>then</p>`},
		{"one\n \n\n two", "<p>one</p><p> two</p>"}, // older or imported bodies: any blank run is one break
	} {
		p := retwis.Post{Body: tc.body, Mentions: []string{"bob"}}
		if got := string(parts.BodyHTML(p)); got != tc.want {
			t.Errorf("BodyHTML(%q) =\n%s\nwant\n%s", tc.body, got, tc.want)
		}
	}
}

// FuzzBodyHTML: whatever a post holds once normalized, its HTML is well
// formed, of paragraphs holding only line breaks, links and isolated
// text, and says the body's text again: its paragraphs separated by a
// blank line, its lines by a line break (links aside, which show
// shortened).
func FuzzBodyHTML(f *testing.F) {
	for _, s := range []string{"hello", "a\r\n\r\n\r\nb", "<p>x</p>\n&amp;", "#t\n@bob\nhttps://a.b/<c>", "x\n\n\n\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		body, err := retwis.NormalizeStatus(in, retwis.DefaultMaxStatusLen)
		if err != nil {
			return
		}
		p := retwis.Post{Body: body, Mentions: []string{"bob"}}
		html := string(parts.BodyHTML(p))
		text, links, err := bodyText(html)
		if err != nil {
			t.Fatalf("%q renders as %q: %v", body, html, err)
		}
		if !links && text != body {
			t.Fatalf("%q renders as %q, which says %q", body, html, text)
		}
	})
}

// bodyText reads the HTML of a body back into its text, a paragraph's
// end as a blank line and a <br> as a line break, and says whether it
// holds a link (which shows shortened); it fails on HTML badly formed
// or holding other elements than BodyHTML writes.
func bodyText(html string) (text string, links bool, err error) {
	d := xml.NewDecoder(strings.NewReader(strings.ReplaceAll(html, "<br>", "<br/>")))
	d.Strict = true
	var b strings.Builder
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return strings.TrimSuffix(b.String(), "\n\n"), links, nil
		}
		if err != nil {
			return "", false, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if ok := tok.Name.Local == "p" && depth == 0 || tok.Name.Local != "p" && depth > 0; !ok ||
				!strings.Contains(" p br a bdi ", " "+tok.Name.Local+" ") {
				return "", false, errors.New("unexpected <" + tok.Name.Local + ">")
			}
			links = links || tok.Name.Local == "a" && !strings.HasPrefix(attr(tok, "href"), "/")
			depth++
		case xml.EndElement:
			depth--
			switch tok.Name.Local {
			case "p":
				b.WriteString("\n\n")
			case "br":
				b.WriteString("\n")
			}
		case xml.CharData:
			if depth == 0 {
				return "", false, errors.New("text outside a paragraph")
			}
			b.Write(tok)
		}
	}
}

// attr returns the value of an element's attribute name.
func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
