package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/cards"
	"github.com/retwis/retwis/internal/safehttp"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// TestStatusCard: a status with a link gets its card from the card
// worker (the job its delivery queues, here queued by hand: the test
// server's delivery worker queues none), which the API then shows as
// Mastodon's PreviewCard, its picture an absolute URL of the small copy,
// as openapi.json describes it, and the post's page under its body; a
// status without a card has card null.
func TestStatusCard(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/p.png" {
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "\x89PNG (what StoreImage makes of it is the test's)")
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<head><meta property="og:title" content="A page"><meta property="og:description" content="What it is">`+
			`<meta property="og:site_name" content="Pages"><meta property="og:image" content="/p.png"></head>`)
	}))
	t.Cleanup(page.Close)
	ann, token := s.User("ann")
	pid := s.Post(token, "look "+page.URL+"/a")
	plain := s.Post(token, "no link")
	picture := &retwis.Attachment{ID: 5, Owner: ann.ID, Ext: "jpg", SmallExt: "jpg", Width: 800, Height: 600, SmallWidth: 400, SmallHeight: 300, Blurhash: "LKO2?U%2Tw=w]~RBVZRi};RPxuwH"}
	w := cards.New(s.Store.DB, cards.Options{Consumer: "test", FetchOptions: cards.FetchOptions{AllowPrivate: true,
		Client:     safehttp.Client(safehttp.Options{AllowPrivate: true}),
		StoreImage: func(context.Context, []byte) (*retwis.Attachment, error) { return picture, nil }}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	id, _ := strconv.ParseInt(pid, 10, 64)
	if err := s.Store.C.Do(t.Context(), cards.JobCmd(s.Store.C.B(), id, ann.ID, page.URL+"/a")).Error(); err != nil {
		t.Fatal(err)
	}
	var st struct{ Card map[string]any }
	for deadline := time.Now().Add(10 * time.Second); st.Card == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if v, _ := s.Store.C.Do(t.Context(), s.Store.C.B().Hget().Key(schema.Post(id)).Field(schema.FieldCard).Build()).ToString(); v != "" {
			s.Call("GET", "/api/v1/statuses/"+pid, token, nil).Decode(t, &st)
		}
	}
	want := map[string]any{"url": page.URL + "/a", "title": "A page", "description": "What it is", "type": "link",
		"author_name": "", "author_url": "", "provider_name": "Pages", "provider_url": "", "html": "", "width": 400.0, "height": 300.0,
		"image": s.URL + "/media/" + strconv.FormatInt(ann.ID, 10) + "/5/small.jpg", "embed_url": "", "blurhash": picture.Blurhash}
	if got, want := must.Value(json.Marshal(st.Card))(t), must.Value(json.Marshal(want))(t); string(got) != string(want) {
		t.Errorf("card %s\nwant %s", got, want)
	}
	html := string(s.Call("GET", retwis.PostPath(id), "", nil).Body)
	if !strings.Contains(html, `<a href="`+page.URL+`/a" rel="nofollow noopener ugc" dir="auto">A page</a>`) ||
		!strings.Contains(html, `<img src="/media/`+strconv.FormatInt(ann.ID, 10)+`/5/small.jpg" alt="" width="400" height="300"`) {
		t.Errorf("the post's page shows no card:\n%s", html)
	}
	_, root := openapitest.Load(t, must.Value(os.ReadFile("openapi.json"))(t))
	schemaOf, _ := openapitest.ResponseSchema(root, "GET", "/api/v1/statuses/"+pid, 200)
	for _, id := range []string{pid, plain} {
		r := s.Call("GET", "/api/v1/statuses/"+id, token, nil)
		var body map[string]any
		r.Decode(t, &body)
		for _, e := range openapitest.Validate(root, schemaOf, body) {
			t.Errorf("status %s: %s", id, e)
		}
		if id == plain && (body["card"] != nil || !strings.Contains(string(r.Body), `"card":null`)) {
			t.Errorf("a status without a link: card %v", body["card"])
		}
	}
}
