package web_test

import (
	"image/color"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestPicturesAlone: the compose boxes do not require text, so a post
// of a picture alone is posted and shown; a post of neither text nor
// picture is refused by the server with the usual message.
func TestPicturesAlone(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("silent")
	if home := b.get("/"); strings.Contains(home.body, `data-url-chars="23" required>`) {
		t.Fatal("the compose box requires text")
	}
	jpg := photo(t, 40, 40, color.RGBA{0, 120, 0, 255})
	redirects(t, b.postParts("/post", value("status", ""), file("media", "a.jpg", jpg), value("alt", "a green square")), "/")
	if got := picturesOf(b.get("/u/silent").body); len(got) != 1 || got[0][2] != "a green square" {
		t.Fatalf("the profile shows the pictures %q", got)
	}
	expect(t, b.postParts("/post", value("status", " "), noFile("media"), value("alt", "")), http.StatusBadRequest, "Please write something to post.")
}

// mediaIDRE finds the pictures' ids on a post's edit form.
var mediaIDRE = regexp.MustCompile(`name="media_id" value="(\d+)"`)

// mediaStatus is what TestEditPictures reads of a Status.
type mediaStatus struct {
	MediaAttachments []struct {
		ID          string
		Description string
		Meta        struct{ Focus struct{ X, Y float64 } }
	} `json:"media_attachments"`
}

// TestEditPictures: the edit page of a post with pictures has a row for
// each, in order, its alt text and focal point prefilled; an alt text
// changed there shows on the pages and in the client API's status and
// media (the store's edit, which the API's uses too), and one changed by
// the API shows on the edit page and the post's; an alt text too long
// or a focus out of range is refused, naming the picture, what was
// typed kept; the form sent as it came changes nothing; a picture
// checked to remove goes.
func TestEditPictures(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	b := s.browser()
	b.signUp("captioner")
	uid := must.Value(s.st.UserByName(t.Context(), "captioner"))(t).ID
	token := must.Value(s.st.CreateToken(t.Context(), uid, "", "test", retwis.Scopes{"read", "write"}))(t)
	jpg := photo(t, 60, 40, color.RGBA{120, 0, 120, 255})
	redirects(t, b.postParts("/post", value("status", "two of a kind"), file("media", "a.jpg", jpg), value("alt", "first"),
		file("media", "b.jpg", jpg), value("alt", "second")), "/")
	s.drain()
	id := s.exec("LINDEX", "timeline", "0")
	form := b.get("/p/" + id + "/edit")
	expect(t, form, http.StatusOK, `value="first"`, `value="second"`, `name="focus" autocomplete="off" value="0,0"`)
	ids := mediaIDRE.FindAllStringSubmatch(form.body, -1)
	if len(ids) != 2 {
		t.Fatalf("the edit form has the pictures %q", ids)
	}
	edit := url.Values{"status": {"two of a kind"}, "media_id": {ids[0][1], ids[1][1]},
		"alt": {"first, described anew", "second"}, "focus": {"0.5,-0.25", "0,0"}}
	redirects(t, b.post("/p/"+id+"/edit", edit), "/p/"+id)
	if got := picturesOf(b.get("/p/" + id).body); len(got) != 2 || got[0][2] != "first, described anew" || got[1][2] != "second" {
		t.Fatalf("the post shows the pictures %q", got)
	}
	var st mediaStatus
	s.api.Call("GET", "/api/v1/statuses/"+id, token, nil).Decode(t, &st)
	if as := st.MediaAttachments; len(as) != 2 || as[0].Description != "first, described anew" || as[0].Meta.Focus.X != 0.5 || as[0].Meta.Focus.Y != -0.25 {
		t.Fatalf("the API's status after the page's edit: %+v", as)
	}
	var rec struct{ Description string }
	if s.api.Call("GET", "/api/v1/media/"+ids[0][1], token, nil).Decode(t, &rec); rec.Description != "first, described anew" {
		t.Errorf("the record of the picture edited on the page says %q", rec.Description)
	}
	r := s.api.Call("PUT", "/api/v1/statuses/"+id, token, url.Values{"status": {"two of a kind"},
		"media_attributes[][id]": {ids[1][1]}, "media_attributes[][description]": {"second, by the API"}})
	if r.Status != http.StatusOK {
		t.Fatalf("the API's edit: %d %s", r.Status, r.Body)
	}
	expect(t, b.get("/p/"+id+"/edit"), http.StatusOK, `value="first, described anew"`, `value="second, by the API"`, `value="0.5,-0.25"`)
	expect(t, b.get("/p/"+id), http.StatusOK, `alt="second, by the API"`)
	edit.Set("status", "kept text")
	edit["alt"] = []string{"kept alt", strings.Repeat("x", retwis.MaxDescriptionChars+1)}
	expect(t, b.post("/p/"+id+"/edit", edit), http.StatusBadRequest, "Picture 2: ", `value="kept alt"`, ">kept text</textarea>")
	edit["alt"], edit["focus"] = []string{"fine", "fine"}, []string{"0,0", "2,0"}
	expect(t, b.post("/p/"+id+"/edit", edit), http.StatusBadRequest, "Picture 2: The focus must be", `value="2,0"`)
	expect(t, b.get("/p/"+id), http.StatusOK, `alt="second, by the API"`, "two of a kind")
	versions := strings.Count(b.get("/p/"+id+"/history").body, "An earlier version")
	edit["alt"], edit["focus"] = []string{"first, described anew", "second, by the API"}, []string{"0.5,-0.25", "0,0"}
	edit.Set("status", "two of a kind")
	redirects(t, b.post("/p/"+id+"/edit", edit), "/p/"+id) // the form as it came: nothing changes
	if n := strings.Count(b.get("/p/"+id+"/history").body, "An earlier version"); n != versions || versions != 2 {
		t.Errorf("an edit that changes nothing: %d earlier versions, then %d; want 2 and 2", versions, n)
	}
	edit["remove"] = []string{ids[0][1]}
	redirects(t, b.post("/p/"+id+"/edit", edit), "/p/"+id)
	if got := picturesOf(b.get("/p/" + id).body); len(got) != 1 || got[0][2] != "second, by the API" {
		t.Errorf("the post after its first picture was removed shows %q", got)
	}
	if r := s.api.Call("GET", "/api/v1/media/"+ids[0][1], token, nil); r.Status != http.StatusOK {
		t.Errorf("the removed picture's record before upkeep: %d; want 200 (upkeep removes it)", r.Status)
	}
}
