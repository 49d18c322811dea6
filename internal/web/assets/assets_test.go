package assets

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// staticGet answers GET path from the static file handler, with the
// given request headers.
func staticGet(t *testing.T, h http.Handler, path string, header ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

// TestStaticFiles: a static file is served with its type, length, cache
// lifetime and ETag; asked again with that ETag, it is 304 without a
// body; asked by a client that takes gzip, it comes gzipped and the same
// once uncompressed; an unknown file is 404.
func TestStaticFiles(t *testing.T) {
	t.Parallel()
	h := Handler()
	want, err := os.ReadFile("static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	plain := staticGet(t, h, "/static/style.css")
	body, _ := io.ReadAll(plain.Body)
	if plain.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("GET style.css: %d, %d bytes; want 200 and the file's %d", plain.StatusCode, len(body), len(want))
	}
	for k, v := range map[string]string{"Content-Type": "text/css; charset=utf-8", "Cache-Control": staticMaxAge, "Vary": "Accept-Encoding"} {
		if got := plain.Header.Get(k); got != v {
			t.Errorf("GET style.css: %s %q, want %q", k, got, v)
		}
	}
	etag := plain.Header.Get("Etag")
	if etag == "" || plain.Header.Get("Content-Encoding") != "" {
		t.Errorf("GET style.css: ETag %q, Content-Encoding %q; want an ETag and no encoding", etag, plain.Header.Get("Content-Encoding"))
	}
	again := staticGet(t, h, "/static/style.css", "If-None-Match", `"other", W/`+etag)
	if b, _ := io.ReadAll(again.Body); again.StatusCode != 304 || len(b) != 0 {
		t.Errorf("GET style.css If-None-Match its ETag: %d with %d bytes; want 304 and none", again.StatusCode, len(b))
	}
	if changed := staticGet(t, h, "/static/style.css", "If-None-Match", `"other"`); changed.StatusCode != 200 {
		t.Errorf("GET style.css If-None-Match another ETag: %d; want 200", changed.StatusCode)
	}
	zipped := staticGet(t, h, "/static/style.css", "Accept-Encoding", "br, gzip;q=0.8")
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil || zipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET style.css accepting gzip: Content-Encoding %q, %v", zipped.Header.Get("Content-Encoding"), err)
	}
	if unzipped, _ := io.ReadAll(zr); !bytes.Equal(unzipped, want) || zipped.Header.Get("Etag") == etag {
		t.Errorf("GET style.css gzipped: %d bytes unzipped, ETag %q; want the file and an ETag of its own", len(unzipped), zipped.Header.Get("Etag"))
	}
	if refused := staticGet(t, h, "/static/style.css", "Accept-Encoding", "*, gzip;q=0"); refused.Header.Get("Content-Encoding") != "" {
		t.Errorf("GET style.css refusing gzip: Content-Encoding %q", refused.Header.Get("Content-Encoding"))
	}
	if png := staticGet(t, h, "/static/avatar.png", "Accept-Encoding", "gzip"); png.Header.Get("Content-Type") != "image/png" {
		t.Errorf("GET avatar.png: Content-Type %q", png.Header.Get("Content-Type"))
	}
	if missing := staticGet(t, h, "/static/nope.css"); missing.StatusCode != 404 {
		t.Errorf("GET nope.css: %d, want 404", missing.StatusCode)
	}
}
