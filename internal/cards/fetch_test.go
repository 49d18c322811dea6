package cards_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	_ "image/gif"  // decoders for storeImage
	_ "image/jpeg" // (png is imported above)

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/cards"
	"github.com/retwis/retwis/internal/safehttp"
)

// storeImage is what the tests give a Fetcher for its pictures: the
// picture decoded far enough to know its size, kept nowhere.
func storeImage(_ context.Context, data []byte) (*retwis.Attachment, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return &retwis.Attachment{ID: 1, Ext: format, Width: cfg.Width, Height: cfg.Height}, nil
}

// pngOf returns a w×h PNG.
func pngOf(t testing.TB, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// site serves the pages of the tests, on a local address.
func site(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.Handle("/article", page(`<html><head><meta property="og:title" content="An article">
		<meta property="og:description" content="About things &amp; stuff"><meta property="og:site_name" content="The Site">
		<meta property="og:image" content="/pic.png"><meta property="og:image:width" content="3"></head><body>`))
	mux.Handle("/video", page(`<head><title>Fallback</title>
		<link rel="alternate" type="application/json+oembed" href="/oembed.json"></head>`))
	mux.HandleFunc("/oembed.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type":"video","title":"A &amp; video","author_name":"Ann","author_url":"https://example.com/ann",
			"provider_name":"Tube","provider_url":"javascript:alert(1)","thumbnail_url":"/thumb.png","html":"<iframe src=x></iframe>"}`)
	})
	mux.Handle("/oembed-only", page(`<link rel="alternate" type="application/json+oembed" href="oembed.json">`))
	mux.Handle("/untitled", page(`<head><meta name="description" content="no title"></head>`))
	pic := pngOf(t, 4, 2)
	for _, p := range []string{"/pic.png", "/thumb.png"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write(pic)
		})
	}
	mux.HandleFunc("/huge-image", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pic)
		w.Write(make([]byte, 8<<20))
	})
	mux.Handle("/huge-image-page", page(`<meta property="og:image" content="/huge-image"><title>Big picture</title>`))
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>Huge</title>")
		for range 1 << 12 { // 4 MiB, of which 1 is read
			w.Write(bytes.Repeat([]byte("<p>x</p>"), 128))
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<head><title>Slow")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"title":"<title>no</title>"}`)
	})
	mux.HandleFunc("/r/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		to := "/article"
		if n > 1 {
			to = fmt.Sprintf("/r/%d", n-1)
		}
		http.Redirect(w, r, to, http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestFetch makes the cards of pages on a server the client may reach:
// OpenGraph with a relative picture, the same after three redirects,
// an oEmbed document's author, provider and thumbnail (its provider_url,
// a javascript: URL, dropped; its html never kept), its title, entities
// decoded, where the page has none; a 4 MiB page read in part, a
// picture over 8 MiB left out, and no card for a page without a title.
func TestFetch(t *testing.T) {
	t.Parallel()
	srv := site(t)
	f := cards.NewFetcher(cards.FetchOptions{Client: safehttp.Client(safehttp.Options{AllowPrivate: true}),
		AllowPrivate: true, StoreImage: storeImage, Timeout: 2 * time.Second})
	for _, c := range []struct {
		path string
		want *retwis.Card
	}{
		{"/article", &retwis.Card{Title: "An article", Description: "About things & stuff", ProviderName: "The Site",
			Image: &retwis.Attachment{ID: 1, Ext: "png", Width: 4, Height: 2}}},
		{"/r/3", &retwis.Card{Title: "An article", Description: "About things & stuff", ProviderName: "The Site",
			Image: &retwis.Attachment{ID: 1, Ext: "png", Width: 4, Height: 2}}},
		{"/video", &retwis.Card{Title: "Fallback", AuthorName: "Ann", AuthorURL: "https://example.com/ann",
			ProviderName: "Tube", Image: &retwis.Attachment{ID: 1, Ext: "png", Width: 4, Height: 2}}},
		{"/oembed-only", &retwis.Card{Title: "A & video", AuthorName: "Ann", AuthorURL: "https://example.com/ann",
			ProviderName: "Tube", Image: &retwis.Attachment{ID: 1, Ext: "png", Width: 4, Height: 2}}},
		{"/huge", &retwis.Card{Title: "Huge"}},
		{"/huge-image-page", &retwis.Card{Title: "Big picture"}},
		{"/untitled", nil},
	} {
		got, err := f.Fetch(t.Context(), srv.URL+c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if c.want != nil {
			c.want.URL = srv.URL + c.path
		}
		if (got == nil) != (c.want == nil) || got != nil && retwis.EncodeCard(*got) != retwis.EncodeCard(*c.want) {
			t.Errorf("%s:\n got %+v (image %+v)\nwant %+v", c.path, got, imageOf(got), c.want)
		}
	}
}

// imageOf returns c's image, nil for none.
func imageOf(c *retwis.Card) *retwis.Attachment {
	if c == nil {
		return nil
	}
	return c.Image
}

// TestFetchRefuses: what a Fetcher does not take, on a server it may
// reach: failures, none of them a card.
func TestFetchRefuses(t *testing.T) {
	t.Parallel()
	srv := site(t)
	f := cards.NewFetcher(cards.FetchOptions{Client: safehttp.Client(safehttp.Options{AllowPrivate: true}),
		AllowPrivate: true, Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/json", "/pic.png", "/missing", "/r/4", "/slow"} {
		start := time.Now()
		c, err := f.Fetch(t.Context(), srv.URL+path)
		if err == nil || c != nil {
			t.Errorf("%s: card %+v, err %v", path, c, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v", path, d)
		}
	}
}

// publicLooking is a client for which the host public.example is a
// public address that serves srv (a redirect there takes the Location
// of its query's "to"), and every other request goes through a client
// that refuses private addresses (safehttp.Client): the answers of a
// public server that sends its visitors on to private addresses.
func publicLooking(t *testing.T) *http.Client {
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	local := safehttp.Client(safehttp.Options{AllowPrivate: true}).Transport
	public := safehttp.Client(safehttp.Options{}).Transport
	return &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			if r.URL.Hostname() != "public.example" {
				return public.RoundTrip(r)
			}
			r = r.Clone(r.Context())
			r.URL.Host = strings.TrimPrefix(redirector.URL, "http://")
			resp, err := local.RoundTrip(r)
			return resp, err
		}),
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestFetchSSRF is the list of docs/PERFORMANCE.md ("Link previews: the
// SSRF test list"): each URL a Fetcher that does not allow private
// addresses must refuse, directly or at the end of a redirect from a
// public server, with the error it must refuse it with.
func TestFetchSSRF(t *testing.T) {
	t.Parallel()
	f := cards.NewFetcher(cards.FetchOptions{Client: publicLooking(t), Timeout: 2 * time.Second, StoreImage: storeImage})
	redirect := func(to string) string { return "http://public.example/?to=" + url.QueryEscape(to) }
	for _, c := range []struct {
		url  string
		want error
	}{
		{"http://127.0.0.1/", safehttp.ErrRefused},
		{"http://127.8.9.10/", safehttp.ErrRefused},
		{"http://[::1]/", safehttp.ErrRefused},
		{"http://localhost/", safehttp.ErrRefused},
		{"http://10.0.0.1/", safehttp.ErrRefused},
		{"http://172.16.0.1/", safehttp.ErrRefused},
		{"http://172.31.255.254/", safehttp.ErrRefused},
		{"http://192.168.1.1/", safehttp.ErrRefused},
		{"http://169.254.169.254/latest/meta-data/", safehttp.ErrRefused},
		{"http://[fd00:ec2::254]/", safehttp.ErrRefused},
		{"http://100.64.0.1/", safehttp.ErrRefused},
		{"http://0.0.0.0/", safehttp.ErrRefused},
		{"http://[::]/", safehttp.ErrRefused},
		{"http://[::ffff:127.0.0.1]/", safehttp.ErrRefused},
		{"http://[::ffff:169.254.169.254]/", safehttp.ErrRefused},
		{"http://[64:ff9b::a9fe:a9fe]/", safehttp.ErrRefused},
		{"http://127.0.0.1:6379/", cards.ErrNotAllowed},
		{"http://public.example:22/", cards.ErrNotAllowed},
		{"file:///etc/passwd", cards.ErrNotAllowed},
		{"gopher://127.0.0.1:6379/_INFO", cards.ErrNotAllowed},
		{"ftp://example.com/", cards.ErrNotAllowed},
		{"http://user:pass@public.example/", cards.ErrNotAllowed},
		{redirect("http://127.0.0.1/"), safehttp.ErrRefused},
		{redirect("http://localhost/"), safehttp.ErrRefused},
		{redirect("http://169.254.169.254/latest/meta-data/"), safehttp.ErrRefused},
		{redirect("http://[::ffff:10.0.0.1]/"), safehttp.ErrRefused},
		{redirect("http://127.0.0.1:6379/"), cards.ErrNotAllowed},
		{redirect("file:///etc/passwd"), cards.ErrNotAllowed},
		{redirect(""), cards.ErrNotAllowed},
		{redirect(redirect(redirect(redirect("http://public.example/")))), cards.ErrTooManyRedirects},
	} {
		c1, err := f.Fetch(t.Context(), c.url)
		if !errors.Is(err, c.want) || c1 != nil {
			t.Errorf("%s: card %+v, err %v; want %v", c.url, c1, err, c.want)
		}
	}
}
