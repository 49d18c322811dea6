package web_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/web/page"
)

// photo returns a w x h JPEG of one colour.
func photo(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	must.OK(t, jpeg.Encode(&buf, img, nil))
	return buf.Bytes()
}

// part is a field of a multipart form: a value, or a file (its name
// and data; both empty: a file input left empty).
type part struct {
	name, value, file string
	data              []byte
	isFile            bool
}

// value, file and noFile are the parts of a form: a value, a file, and
// a file input left empty.
func value(name, v string) part { return part{name: name, value: v} }
func file(name, fname string, data []byte) part {
	return part{name: name, file: fname, data: data, isFile: true}
}
func noFile(name string) part { return part{name: name, isFile: true} }

// postParts posts parts as a multipart form, in their order.
func (b *browser) postParts(path string, parts ...part) response {
	b.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		if !p.isFile {
			must.OK(b.t, mw.WriteField(p.name, p.value))
			continue
		}
		w := must.Value(mw.CreateFormFile(p.name, p.file))(b.t)
		must.Value(w.Write(p.data))(b.t)
	}
	must.OK(b.t, mw.Close())
	req := must.Value(http.NewRequest("POST", b.site.srv.URL+path, &body))(b.t)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.send(req)
}

// pictureRE finds a post's pictures: the link to the picture, its small
// copy, its alt text.
var pictureRE = regexp.MustCompile(`<a href="(/media/[^"]+)"><img src="(/media/[^"]+)" alt="([^"]*)" width="\d+" height="\d+" loading="lazy"></a>`)

// picturesOf returns the pictures of a page: each [link, small, alt].
func picturesOf(body string) [][]string {
	var got [][]string
	for _, m := range pictureRE.FindAllStringSubmatch(body, -1) {
		got = append(got, m[1:])
	}
	return got
}

// TestPostWithPictures: a post with two pictures, each with its alt
// text (a file input left empty between them, its alt text with it,
// pairs nothing), shows them in a grid, in order, with their alt texts,
// on the home page, the profile and the thread, and their files are
// served as JPEGs.
func TestPostWithPictures(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("painter")
	r := b.postParts("/post", value("status", "two squares"),
		file("media", "red.jpg", photo(t, 600, 400, color.RGBA{200, 0, 0, 255})), value("alt", "a red square"),
		noFile("media"), value("alt", "nothing"),
		file("media", "blue.jpg", photo(t, 300, 300, color.RGBA{0, 0, 200, 255})), value("alt", "a blue square"),
		value("visibility", "public"))
	redirects(t, r, "/")
	s.drain()
	for _, path := range []string{"/", "/u/painter", "/timeline"} {
		home := b.get(path)
		expect(t, home, http.StatusOK, "two squares", `class="media media-2"`)
		got := picturesOf(home.body)
		if len(got) != 2 || got[0][2] != "a red square" || got[1][2] != "a blue square" {
			t.Fatalf("%s shows the pictures %q", path, got)
		}
		for _, pic := range got {
			for _, p := range pic[:2] {
				f := b.get(p)
				if f.status != http.StatusOK || f.header.Get("Content-Type") != "image/jpeg" || len(f.body) == 0 {
					t.Fatalf("GET %s: %d %s", p, f.status, f.header.Get("Content-Type"))
				}
			}
		}
	}
	id := regexp.MustCompile(`href="/p/(\d+)"`).FindStringSubmatch(b.get("/").body)
	if id == nil {
		t.Fatal("no permalink on the home page")
	}
	if got := picturesOf(b.get("/p/" + id[1]).body); len(got) != 2 {
		t.Fatalf("the thread shows the pictures %q", got)
	}
}

// TestPostPicturesRefused: a post with five pictures, with a picture
// that is no picture (an SVG), or with an alt text too long, is refused
// with 400 and why, the text kept and the pictures to choose again, and
// nothing is posted.
func TestPostPicturesRefused(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("refused")
	jpg := photo(t, 40, 40, color.RGBA{0, 200, 0, 255})
	five := []part{value("status", "five squares")}
	for i := range 5 {
		five = append(five, file("media", strconv.Itoa(i)+".jpg", jpg), value("alt", "square"))
	}
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>`)
	for _, c := range []struct {
		parts []part
		why   string
	}{
		{five, "at most 4 pictures"},
		{[]part{value("status", "a drawing"), file("media", "a.jpg", jpg), value("alt", "ok"), file("media", "x.svg", svg), value("alt", "svg")}, "Picture 2: "},
		{[]part{value("status", "long words"), file("media", "a.jpg", jpg), value("alt", strings.Repeat("x", retwis.MaxDescriptionChars+1))}, "Picture 1: "},
	} {
		r := b.postParts("/post", c.parts...)
		expect(t, r, http.StatusBadRequest, c.why, "choose the pictures again", c.parts[0].value)
	}
	expect(t, b.get("/u/refused"), http.StatusOK, "No posts yet.")
}

// TestSensitivePictures: the pictures of a sensitive post are behind a
// <details> of their own, closed; those of a post with a content warning
// behind the warning, with the body.
func TestSensitivePictures(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("careful")
	jpg := photo(t, 40, 40, color.RGBA{0, 0, 0, 255})
	redirects(t, b.postParts("/post", value("status", "look closely"), file("media", "a.jpg", jpg), value("alt", "dark"), value("sensitive", "1")), "/")
	redirects(t, b.postParts("/post", value("status", "spoiled"), value("spoiler", "the ending"), file("media", "b.jpg", jpg), value("alt", "darker")), "/")
	home := b.get("/").body
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`look closely</p></div><details class="cw"><summary>Sensitive pictures</summary><div class="media media-1"><a [^>]+><img [^>]+alt="dark"`),
		regexp.MustCompile(`<details class="cw"><summary dir="auto">the ending</summary><div class="body" dir="auto"><p>spoiled</p></div><div class="media media-1"><a [^>]+><img [^>]+alt="darker"[^>]+></a></div></details>`),
	} {
		if !want.MatchString(home) {
			t.Fatalf("the home page lacks %s:\n%s", want, home)
		}
	}
}

// TestSettingsPictures: an avatar and a header set on the settings page
// show on the profile and beside the user's posts, /avatars/<id> goes
// to the avatar's picture, the settings page tells what the pictures
// weigh; a form refused (a name too long, a picture that is none)
// changes nothing; removed, the avatar is the one made from the id
// again.
func TestSettingsPictures(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("framed")
	uid := must.Value(s.st.UserByName(t.Context(), "framed"))(t).ID
	avatarPath := retwis.AvatarPath(uid)
	redirects(t, b.post("/post", map[string][]string{"status": {"framed post"}}), "/")
	expect(t, b.get(avatarPath), http.StatusOK) // made from the id
	r := b.postParts("/settings", value("name", strings.Repeat("n", 200)), value("bio", ""),
		file("avatar", "me.jpg", photo(t, 200, 200, color.RGBA{9, 9, 9, 255})))
	expect(t, r, http.StatusBadRequest, "choose the pictures again")
	r = b.postParts("/settings", value("name", "Framed"), value("bio", "hi"), file("avatar", "me.svg", []byte("<svg/>")))
	expect(t, r, http.StatusBadRequest, "Avatar: ")
	if a := b.get(avatarPath); a.status != http.StatusOK || a.header.Get("Content-Type") != "image/png" {
		t.Fatalf("a refused form changed the avatar: %d %s", a.status, a.location)
	}
	r = b.postParts("/settings", value("name", "Framed"), value("bio", "hi"),
		file("avatar", "me.jpg", photo(t, 200, 200, color.RGBA{9, 9, 9, 255})), file("header", "wide.jpg", photo(t, 900, 300, color.RGBA{90, 9, 9, 255})))
	redirects(t, r, "/u/framed")
	avatarImg := `<img class="avatar" src="` + avatarPath + `"`
	expect(t, b.get("/u/framed"), http.StatusOK, `<img class="avatar large" src="`+avatarPath+`"`, `<img class="header" src="/media/`, avatarImg)
	expect(t, b.get("/"), http.StatusOK, avatarImg)
	a := b.get(avatarPath)
	if a.status != http.StatusFound || !strings.HasPrefix(a.location, "/media/"+strconv.FormatInt(uid, 10)+"/") {
		t.Fatalf("GET %s: %d to %q", avatarPath, a.status, a.location)
	}
	if f := b.get(a.location); f.status != http.StatusOK || f.header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("GET %s: %d %s", a.location, f.status, f.header.Get("Content-Type"))
	}
	expect(t, b.get("/settings"), http.StatusOK, "Your pictures use ", `name="avatar_remove"`, `name="header_remove"`)
	redirects(t, b.postParts("/settings", value("name", "Framed"), value("bio", "hi"), value("avatar_remove", "1")), "/u/framed")
	if a := b.get(avatarPath); a.status != http.StatusOK || a.header.Get("Content-Type") != "image/png" {
		t.Fatalf("the avatar removed: %d %s", a.status, a.location)
	}
	expect(t, b.get("/u/framed"), http.StatusOK, `<img class="header" src="/media/`)
}

// TestUploadsCapped: a multipart form is refused from another site, as
// any form is, and one too large for its route with 413: the routes that
// take no pictures take no more than a form of text.
func TestUploadsCapped(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("capped")
	big := photo(t, 40, 40, color.RGBA{}) // padded past the forms' cap below
	big = append(big, make([]byte, 64<<10)...)
	r := b.postParts("/settings/password", file("current", "x.jpg", big))
	expect(t, r, http.StatusRequestEntityTooLarge, "The form is too large.")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	must.OK(t, mw.WriteField("status", "from elsewhere"))
	must.OK(t, mw.Close())
	req := must.Value(http.NewRequest("POST", s.srv.URL+"/post", &body))(t)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	expect(t, b.send(req), http.StatusForbidden, "another site")
}

// TestUploadFormsBounded: while page.UploadForms forms with pictures are
// being read, one more is refused at once with 503, to try again, and
// the forms of text go on; once they are read, uploads are taken again.
func TestUploadFormsBounded(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("flooder")
	var writers []*io.PipeWriter
	done := make(chan error, page.UploadForms)
	for range page.UploadForms {
		pr, pw := io.Pipe()
		writers = append(writers, pw)
		req := must.Value(http.NewRequest("POST", s.srv.URL+"/post", pr))(t)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		go func() {
			res, err := b.c.Do(req)
			if err == nil {
				res.Body.Close()
			}
			done <- err
		}()
		must.Value(pw.Write([]byte("--b\r\nContent-Disposition: form-data; name=\"status\"\r\n\r\nslow")))(t)
	}
	refused := false
	for deadline := time.Now().Add(10 * time.Second); !refused && time.Now().Before(deadline); {
		r := b.postParts("/post", value("status", "one more"))
		refused = r.status == http.StatusServiceUnavailable && strings.Contains(r.body, "busy with other pictures")
	}
	if !refused {
		t.Fatal("a form with pictures beyond the bound was not refused")
	}
	redirects(t, b.post("/post", url.Values{"status": {"text goes on"}}), "/")
	for _, pw := range writers {
		must.Value(pw.Write([]byte("\r\n--b--\r\n")))(t)
		pw.Close()
	}
	for range writers {
		must.OK(t, <-done)
	}
	redirects(t, b.postParts("/post", value("status", "taken again")), "/")
}

// BenchmarkPicturePages measures the profile of an author whose ten
// posts have two pictures each against one whose posts have none, and
// the static route, in one run (compare the ratios): a picture is a few
// hundred bytes of markup in its post's kept fragment, its files served
// apart (the media route, and the small copy itself).
//
//	go test ./internal/web -run '^$' -bench PicturePages -benchtime 1s -count 7
func BenchmarkPicturePages(b *testing.B) {
	s := newSite(b)
	reader, painter, writer := s.browser(), s.browser(), s.browser()
	reader.signUp("reader")
	painter.signUp("painter")
	writer.signUp("writer")
	jpg := photo(b, 800, 600, color.RGBA{0, 90, 160, 255})
	for i := range 10 {
		text := fmt.Sprintf("post %d, of a realistic length for a status update", i)
		redirects(b, writer.post("/post", url.Values{"status": {text}}), "/")
		redirects(b, painter.postParts("/post", value("status", text), file("media", "a.jpg", jpg), value("alt", "a blue square"),
			file("media", "b.jpg", jpg), value("alt", "another blue square")), "/")
	}
	small := picturesOf(painter.get("/u/painter").body)[0][1]
	cookie := authCookie(reader.cookie())
	for _, path := range []string{"/static/style.css", "/u/writer", "/u/painter"} {
		benchGet(b, s, cookie, path, path)
	}
	benchGet(b, s, cookie, "a small picture", small)
}
