package api_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// photo is servertest.Photo.
var photo = servertest.Photo

// multipartBody is a multipart/form-data body of fields and files, as
// servertest.Server.Call sends it.
func multipartBody(t testing.TB, fields map[string]string, files map[string][]byte) servertest.RawBody {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		must.OK(t, mw.WriteField(k, v))
	}
	for k, data := range files {
		w := must.Value(mw.CreateFormFile(k, k+".bin"))(t)
		must.Value(w.Write(data))(t)
	}
	must.OK(t, mw.Close())
	return servertest.RawBody{ContentType: mw.FormDataContentType(), Body: buf.String()}
}

// mediaEntity is what the tests read of a MediaAttachment.
type mediaEntity struct {
	ID, Type              string
	RawURL                *string `json:"url"`
	Description, Blurhash *string
	Meta                  struct {
		Original, Small *struct {
			Width, Height int
			Size          string
			Aspect        float64
		}
		Focus struct{ X, Y float64 }
	}
}

// waitReady polls GET /api/v1/media/:id as apps do until it answers 200
// (206 while the picture is processed), and returns the picture.
func waitReady(t *testing.T, s *server, token, id string) mediaEntity {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := s.Call("GET", "/api/v1/media/"+id, token, nil)
		var m mediaEntity
		r.Decode(t, &m)
		switch {
		case r.Status == http.StatusOK:
			return m
		case r.Status != http.StatusPartialContent || m.RawURL != nil:
			t.Fatalf("GET /api/v1/media/%s: %d %s; want 206 with url null, then 200", id, r.Status, r.Body)
		case time.Now().After(deadline):
			t.Fatalf("the picture %s is not processed after 10 s", id)
		}
		time.Sleep(10 * time.Millisecond) // polls, as apps do
	}
}

// checkServed: the file at u (on s) is a JPEG, served never sniffed.
func checkServed(t *testing.T, s *server, u string) {
	t.Helper()
	path, ok := strings.CutPrefix(u, s.URL)
	if !ok {
		t.Fatalf("the URL %q is not on the server %s", u, s.URL)
	}
	r := s.Call("GET", path, "", nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/jpeg" || r.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!bytes.HasPrefix(r.Body, []byte{0xff, 0xd8}) {
		t.Errorf("GET %s: %d, %q, nosniff %q, %d bytes; want a JPEG", path, r.Status, r.Header.Get("Content-Type"),
			r.Header.Get("X-Content-Type-Options"), len(r.Body))
	}
}

// TestMediaMastodon: go-mastodon uploads a photo with its alt text and
// focus (v2: 202 or 200), polls it until processed, and posts it with
// no text, sensitive; the status carries it with its sizes, focus,
// blurhash and URLs, whose files are served; the instance says the
// limits.
func TestMediaMastodon(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	_, token := s.User("alice")
	alice := s.Mastodon(&mastodon.Config{AccessToken: token})
	up, err := alice.UploadMediaFromMedia(ctx, &mastodon.Media{File: bytes.NewReader(photo(t, 2400, 1200)), Description: " a gradient ", Focus: "0.5,-0.25"})
	if err != nil || up.ID == "" || up.Type != "image" {
		t.Fatalf("upload: %+v, %v", up, err)
	}
	for alice.GetMediaStatus(ctx, up) != nil { // 206 while processed
		waitReady(t, s, token, string(up.ID))
	}
	st, err := alice.PostStatus(ctx, &mastodon.Toot{MediaIDs: []mastodon.ID{up.ID}, Sensitive: true})
	if err != nil {
		t.Fatalf("a post of a picture without text: %v", err)
	}
	if !st.Sensitive || st.Content != "" || len(st.MediaAttachments) != 1 {
		t.Fatalf("the post = sensitive %v, content %q, %d pictures; want sensitive, no content, 1", st.Sensitive, st.Content, len(st.MediaAttachments))
	}
	a := st.MediaAttachments[0]
	m := a.Meta
	if a.ID != up.ID || a.Type != "image" || a.Description != "a gradient" || a.BlurHash == "" || a.RemoteURL != "" ||
		m.Original.Width != retwis.MaxMediaSide || m.Original.Height != 960 || m.Original.Size != "1920x960" || m.Original.Aspect != 2 ||
		m.Small.Width != retwis.SmallMediaSide || m.Small.Height != 200 || m.Focus.X != 0.5 || m.Focus.Y != -0.25 {
		t.Errorf("the attachment = %+v", a)
	}
	if !strings.HasPrefix(a.URL, s.URL+"/media/") || !strings.HasSuffix(a.PreviewURL, "-small.jpg") {
		t.Errorf("url %q, preview_url %q", a.URL, a.PreviewURL)
	}
	checkServed(t, s, a.URL)
	checkServed(t, s, a.PreviewURL)
	s.Drain() // the delivery of a post without text
	read := must.Value(alice.GetStatus(ctx, st.ID))(t)
	if len(read.MediaAttachments) != 1 || read.MediaAttachments[0].URL != a.URL || !read.Sensitive {
		t.Errorf("the post read back: %+v", read)
	}
	if _, err := alice.PostStatus(ctx, &mastodon.Toot{Status: "again", MediaIDs: []mastodon.ID{up.ID}}); err == nil ||
		!strings.Contains(err.Error(), "attached to another post") {
		t.Errorf("a picture attached twice: %v; want refused", err)
	}
	inst := must.Value(alice.GetInstance(ctx))(t)
	if st := *inst.Configuration.Statuses; st["max_media_attachments"] != 4.0 {
		t.Errorf("configuration.statuses = %v; want max_media_attachments 4", st)
	}
	var v2 struct {
		Configuration struct {
			MediaAttachments struct {
				SupportedMimeTypes []string `json:"supported_mime_types"`
				ImageSizeLimit     int64    `json:"image_size_limit"`
				DescriptionLimit   int      `json:"description_limit"`
			} `json:"media_attachments"`
		}
	}
	s.Call("GET", "/api/v2/instance", "", nil).Decode(t, &v2)
	if ma := v2.Configuration.MediaAttachments; len(ma.SupportedMimeTypes) != 4 || ma.ImageSizeLimit != s.Media.Limits().MaxBytes ||
		ma.DescriptionLimit != retwis.MaxDescriptionChars {
		t.Errorf("v2 configuration.media_attachments = %+v", ma)
	}
}

// upload uploads data with fields through POST path and returns the
// answer.
func upload(t testing.TB, s *server, path, token string, data []byte, fields map[string]string) servertest.Reply {
	t.Helper()
	return s.Call("POST", path, token, multipartBody(t, fields, map[string][]byte{"file": data}))
}

// TestMediaUploads: v1 answers the picture processed; v2 answers 202
// with url null or 200, and GET polls it; PUT changes its alt text and
// focus until it is attached; what is not a picture, too large or
// missing is refused with 422 and Mastodon's error; another user's
// upload is not found; a post takes at most 4, each ready and the
// user's.
func TestMediaUploads(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, alice := s.User("alice")
	_, bob := s.User("bob")
	var v1 mediaEntity
	r := upload(t, s, "/api/v1/media", alice, photo(t, 64, 48), map[string]string{"description": "small"})
	if r.Decode(t, &v1); r.Status != http.StatusOK || v1.RawURL == nil || v1.Meta.Original == nil || v1.Meta.Original.Size != "64x48" {
		t.Fatalf("POST /api/v1/media: %d %s; want the picture processed", r.Status, r.Body)
	}
	var v2 mediaEntity
	r = upload(t, s, "/api/v2/media", alice, photo(t, 640, 480), nil)
	if r.Decode(t, &v2); r.Status != http.StatusOK && (r.Status != http.StatusAccepted || v2.RawURL != nil) {
		t.Fatalf("POST /api/v2/media: %d %s; want 200, or 202 with url null", r.Status, r.Body)
	}
	waitReady(t, s, alice, v2.ID)
	var put mediaEntity
	r = s.Call("PUT", "/api/v1/media/"+v2.ID, alice, url.Values{"description": {" the view "}, "focus": {"-1,1"}})
	if r.Decode(t, &put); r.Status != http.StatusOK || put.Description == nil || *put.Description != "the view" || put.Meta.Focus.X != -1 || put.Meta.Focus.Y != 1 {
		t.Errorf("PUT /api/v1/media: %d %s", r.Status, r.Body)
	}
	for name, c := range map[string]struct {
		path  string
		body  any
		token string
		want  int
		says  string
	}{
		"an SVG":         {"/api/v2/media", multipartBody(t, nil, map[string][]byte{"file": []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)}), alice, 422, ""},
		"no file":        {"/api/v2/media", multipartBody(t, map[string]string{"description": "x"}, nil), alice, 422, "file"},
		"a form":         {"/api/v1/media", url.Values{"description": {"x"}}, alice, 422, "file"},
		"too large":      {"/api/v2/media", multipartBody(t, nil, map[string][]byte{"file": make([]byte, s.Media.Limits().MaxBytes+100<<10)}), alice, 422, "MB"},
		"a bad focus":    {"/api/v2/media", multipartBody(t, map[string]string{"focus": "2,0"}, map[string][]byte{"file": photo(t, 8, 8)}), alice, 422, "focus"},
		"bob's GET":      {"/api/v1/media/" + v2.ID, nil, bob, 404, ""},
		"no token":       {"/api/v2/media", multipartBody(t, nil, map[string][]byte{"file": photo(t, 8, 8)}), "", 401, ""},
		"five pictures":  {"/api/v1/statuses", url.Values{"status": {"x"}, "media_ids[]": {v1.ID, v2.ID, "1", "2", "3"}}, alice, 422, "at most 4"},
		"an unknown one": {"/api/v1/statuses", url.Values{"status": {"x"}, "media_ids[]": {"12345"}}, alice, 422, "12345"},
		"bob's pictures": {"/api/v1/statuses", url.Values{"status": {"x"}, "media_ids[]": {v1.ID}}, bob, 422, v1.ID},
		"no text at all": {"/api/v1/statuses", url.Values{"status": {" "}}, alice, 422, "write something"},
	} {
		method := "POST"
		if c.body == nil {
			method = "GET"
		}
		r := s.Call(method, c.path, c.token, c.body)
		if r.Status != c.want || !strings.Contains(r.ErrorMessage(t), c.says) {
			t.Errorf("%s: %d %s; want %d saying %q", name, r.Status, r.Body, c.want, c.says)
		}
	}
	post := s.Call("POST", "/api/v1/statuses", alice, url.Values{"status": {"two"}, "media_ids[]": {v2.ID, v1.ID}})
	var st struct {
		ID               string
		MediaAttachments []mediaEntity `json:"media_attachments"`
	}
	if post.Decode(t, &st); post.Status != http.StatusOK || len(st.MediaAttachments) != 2 || st.MediaAttachments[0].ID != v2.ID || st.MediaAttachments[1].ID != v1.ID {
		t.Fatalf("a post of two pictures: %d %s", post.Status, post.Body)
	}
	if r := s.Call("PUT", "/api/v1/media/"+v2.ID, alice, url.Values{"description": {"late"}}); r.Status != http.StatusNotFound {
		t.Errorf("PUT of an attached picture: %d %s; want 404, as Mastodon", r.Status, r.Body)
	}
	checkMediaEdit(t, s, alice, st.ID, v2.ID, v1.ID)
}

// checkMediaEdit: an edit of post pid, whose pictures are a and b, may
// name them and change their alt text and focus, but not another's.
func checkMediaEdit(t *testing.T, s *server, token, pid, a, b string) {
	t.Helper()
	r := s.Call("PUT", "/api/v1/statuses/"+pid, token, fmt.Sprintf(`{"status": "", "media_ids": [%q, %q],
		"media_attributes": [{"id": %q, "description": "first, described"}, {"id": %q, "focus": "0.5,0.5"}]}`, a, b, a, b))
	var st struct {
		Content          string
		MediaAttachments []mediaEntity `json:"media_attachments"`
	}
	if r.Decode(t, &st); r.Status != http.StatusOK || st.Content != "" || len(st.MediaAttachments) != 2 {
		t.Fatalf("the edit: %d %s", r.Status, r.Body)
	}
	first, second := st.MediaAttachments[0], st.MediaAttachments[1]
	if first.Description == nil || *first.Description != "first, described" || second.Meta.Focus.X != 0.5 ||
		second.Description == nil || *second.Description != "small" {
		t.Errorf("the pictures edited: %s", r.Body)
	}
	var rec mediaEntity
	if s.Call("GET", "/api/v1/media/"+a, token, nil).Decode(t, &rec); rec.Description == nil || *rec.Description != "first, described" {
		t.Errorf("the record of the picture edited says %v", rec.Description)
	}
	for name, body := range map[string]url.Values{
		"other pictures":  {"status": {"x"}, "media_ids[]": {b, "12345"}},
		"another's text":  {"status": {"x"}, "media_attributes[][id]": {"12345"}, "media_attributes[][description]": {"x"}},
		"a long alt text": {"status": {"x"}, "media_attributes[][id]": {a}, "media_attributes[][description]": {strings.Repeat("x", 1501)}},
	} {
		if r := s.Call("PUT", "/api/v1/statuses/"+pid, token, body); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("an edit with %s: %d %s; want 422", name, r.Status, r.Body)
		}
	}
}

// TestProfilePictures: update_credentials takes an avatar (multipart,
// as the apps send it) and a header (a data URI, as go-mastodon sends
// it), which the account then shows and serves; DELETE of each brings
// back the generated avatar and the default header; a file that is not
// a picture changes nothing.
func TestProfilePictures(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	u, token := s.User("alice")
	alice := s.Mastodon(&mastodon.Config{AccessToken: token})
	me := must.Value(alice.GetAccountCurrentUser(ctx))(t)
	generated, plain := s.URL+retwis.AvatarPath(u.ID), s.URL+retwis.HeaderPath
	if me.Avatar != generated || me.AvatarStatic != generated || me.Header != plain || me.HeaderStatic != plain {
		t.Fatalf("avatar %q, header %q; want %q and %q", me.Avatar, me.Header, generated, plain)
	}
	if r := s.Call("GET", retwis.AvatarPath(u.ID), "", nil); r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/") {
		t.Errorf("the generated avatar: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	r := s.Call("PATCH", "/api/v1/accounts/update_credentials", token, multipartBody(t, map[string]string{"note": "pictures"},
		map[string][]byte{"avatar": photo(t, 800, 800)}))
	var acct struct{ Avatar, Header, Note string }
	if r.Decode(t, &acct); r.Status != http.StatusOK || !strings.HasPrefix(acct.Avatar, s.URL+"/media/") || acct.Header != plain || acct.Note != "<p>pictures</p>" {
		t.Fatalf("update_credentials with an avatar: %d %s", r.Status, r.Body)
	}
	checkServed(t, s, acct.Avatar)
	dataURI := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(photo(t, 1500, 500))
	me, err := alice.AccountUpdate(ctx, &mastodon.Profile{Header: dataURI})
	if err != nil || me.Avatar != acct.Avatar || !strings.HasSuffix(me.Header, "-original.jpg") {
		t.Fatalf("a header as a data URI: %+v, %v", me, err)
	}
	checkServed(t, s, me.Header)
	bad := s.Call("PATCH", "/api/v1/accounts/update_credentials", token, multipartBody(t, map[string]string{"note": "changed"},
		map[string][]byte{"header": []byte("<html>not a picture</html>")}))
	if bad.Status != http.StatusUnprocessableEntity || must.Value(alice.GetAccountCurrentUser(ctx))(t).Note != "<p>pictures</p>" {
		t.Errorf("a header that is no picture: %d %s; want 422, nothing changed", bad.Status, bad.Body)
	}
	for _, path := range []string{"/api/v1/profile/avatar", "/api/v1/profile/header"} {
		if r := s.Call("DELETE", path, token, nil); r.Status != http.StatusOK {
			t.Errorf("DELETE %s: %d %s", path, r.Status, r.Body)
		}
	}
	if me := must.Value(alice.GetAccountCurrentUser(ctx))(t); me.Avatar != generated || me.Header != plain {
		t.Errorf("after the deletes: avatar %q, header %q; want %q and %q", me.Avatar, me.Header, generated, plain)
	}
}

// TestOnlyMedia: only_media=true keeps the posts with pictures of an
// account's statuses, the public timeline and a tag's; a page with none
// still links to the next, so that apps page on.
func TestOnlyMedia(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	u, token := s.User("alice")
	s.Post(token, "first #tag")
	var m mediaEntity
	upload(t, s, "/api/v1/media", token, photo(t, 16, 16), nil).Decode(t, &m)
	var pictured struct{ ID string }
	r := s.Call("POST", "/api/v1/statuses", token, url.Values{"status": {"pictured #tag"}, "media_ids[]": {m.ID}})
	if r.Decode(t, &pictured); r.Status != http.StatusOK {
		t.Fatalf("a post with a picture: %d %s", r.Status, r.Body)
	}
	last := s.Post(token, "last #tag")
	s.Drain()
	for _, path := range []string{fmt.Sprint("/api/v1/accounts/", u.ID, "/statuses"), "/api/v1/timelines/public", "/api/v1/timelines/tag/tag"} {
		var all, only []struct{ ID string }
		s.Call("GET", path, token, nil).Decode(t, &all)
		s.Call("GET", path+"?only_media=true", token, nil).Decode(t, &only)
		if len(all) != 3 || len(only) != 1 || only[0].ID != pictured.ID {
			t.Errorf("%s: %v, with only_media %v; want 3, and %s alone", path, all, only, pictured.ID)
		}
		first := s.Call("GET", path+"?only_media=true&limit=1", token, nil)
		if string(first.Body) != "[]\n" || !strings.Contains(first.Header.Get("Link"), "max_id="+last) {
			t.Errorf("%s: a first page of one post without pictures: %s, Link %q; want none and a link past %s", path, first.Body, first.Header.Get("Link"), last)
		}
	}
}
