package api

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestJSONParams(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/x?limit=5", strings.NewReader(
		`{"status": "hi", "media_ids": ["1", 2], "poll": {"options": ["a", "b"]}, "sensitive": true, "n": null}`))
	r.Header.Set("Content-Type", "application/json")
	v, err := params(r)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string][]string{"status": {"hi"}, "media_ids[]": {"1", "2"}, "poll[options][]": {"a", "b"},
		"sensitive": {"true"}, "limit": {"5"}} {
		if !slices.Equal(v[k], want) {
			t.Errorf("%s = %q; want %q", k, v[k], want)
		}
	}
	if _, ok := v["n"]; ok {
		t.Error("null became a value")
	}
	if got := list(v, "media_ids"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("list = %q", got)
	}
}

// FuzzParams: whatever the body and its type, params answers values or
// an error that says what is wrong (400 or 413), never panics, and never
// more than maxParams values.
func FuzzParams(f *testing.F) {
	for _, seed := range [][2]string{
		{"application/json", `{"a": [1, {"b": [[["deep"]]]}]}`},
		{"application/x-www-form-urlencoded", "a=1&a[]=2&b=%zz"},
		{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--\r\n"},
		{"", "status=hi"},
		{"text/plain", `{"status": 1e400}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, contentType, body string) {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		v, err := params(r)
		if err != nil {
			if pe, ok := err.(*paramError); !ok || pe.status != http.StatusBadRequest && pe.status != http.StatusRequestEntityTooLarge || pe.msg == "" {
				t.Fatalf("error %#v", err)
			}
			return
		}
		if countParams(v) != nil {
			t.Fatalf("%d values passed", len(v))
		}
	})
}
