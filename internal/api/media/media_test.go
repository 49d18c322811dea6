package media_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/media"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// TestV2Processing: POST /api/v2/media that does not wait for the
// picture (a wait of a nanosecond) answers 202 with url null, and GET
// answers 206 until the picture is processed, then 200 with its url, as
// apps expect when they poll.
func TestV2Processing(t *testing.T) {
	t.Parallel()
	srv := servertest.Start(t, redistest.Start(t).URL, servertest.Options{})
	k := apiwire.New(apiwire.Options{Store: srv.Store, Media: srv.Media})
	mux := http.NewServeMux()
	media.NewWaiting(k, time.Nanosecond).Routes(mux)
	h := k.Handler(mux)
	_, token := srv.User("alice")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	must.Value(must.Value(mw.CreateFormFile("file", "photo.jpg"))(t).Write(servertest.Photo(t, 640, 480)))(t)
	must.OK(t, mw.Close())
	req := httptest.NewRequest(http.MethodPost, "/api/v2/media", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	status, m := call(t, h, req, token)
	if status != http.StatusAccepted || m.ID == "" || m.URL != nil {
		t.Fatalf("POST /api/v2/media: %d %+v; want 202 with url null", status, m)
	}
	deadline := time.Now().Add(10 * time.Second)
	for status == http.StatusAccepted || status == http.StatusPartialContent {
		if m.URL != nil || time.Now().After(deadline) {
			t.Fatalf("%d %+v: url not null, or not processed after 10 s", status, m)
		}
		time.Sleep(5 * time.Millisecond) // polls, as apps do
		status, m = call(t, h, httptest.NewRequest(http.MethodGet, "/api/v1/media/"+m.ID, nil), token)
	}
	if status != http.StatusOK || m.URL == nil || m.Meta.Original.Width != 640 {
		t.Errorf("GET /api/v1/media/:id: %d %+v; want 206, then 200 with the picture", status, m)
	}
}

// attachment is what the test reads of a MediaAttachment.
type attachment struct {
	ID   string
	URL  *string
	Meta struct{ Original struct{ Width int } }
}

// call answers req with h, as token's user, and decodes the
// MediaAttachment answered.
func call(t *testing.T, h http.Handler, req *http.Request, token string) (int, attachment) {
	t.Helper()
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var m attachment
	must.OK(t, json.Unmarshal(w.Body.Bytes(), &m))
	return w.Code, m
}
