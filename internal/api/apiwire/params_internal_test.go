package apiwire

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestJSONParams(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodPost, "/x?limit=5", strings.NewReader(
		`{"status": "hi", "media_ids": ["1", 2], "poll": {"options": ["a", "b"]}, "sensitive": true, "n": null}`))
	r.Header.Set("Content-Type", "application/json")
	v, err := Params(r)
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
	if got := List(v, "media_ids"); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("list = %q", got)
	}
}

// FuzzParams: whatever the body and its type, params answers values or
// an error that says what is wrong (400, 413, 415 or 422), never
// panics, and never more than maxParams values, nor one of scalarParams
// as anything but one value.
func FuzzParams(f *testing.F) {
	for _, seed := range [][2]string{
		{"application/json", `{"a": [1, {"b": [[["deep"]]]}]}`},
		{"application/x-www-form-urlencoded", "a=1&a[]=2&b=%zz"},
		{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--\r\n"},
		{"", "status=hi"},
		{"application/json", `{"status": "hi @a", "visibility": ["direct", "public"]}`},
		{"text/plain", `{"status": 1e400}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, contentType, body string) {
		r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		w := httptest.NewRecorder()
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		v, err := Params(r)
		if err != nil {
			if pe, ok := err.(*paramError); !ok || !slices.Contains(paramStatuses, pe.status) || pe.msg == "" {
				t.Fatalf("error %#v", err)
			}
			return
		}
		if checkParams(v) != nil {
			t.Fatalf("%q passed", v)
		}
	})
}

// paramStatuses are the statuses of a paramError.
var paramStatuses = []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity}

// TestParamsRule: parameters come from the query string of a GET, from
// the body of any other request as its media type says (and from its
// query string when the body does not give them); a type that is not
// read is 415, a parameter given twice or of the wrong shape 422 naming
// it.
func TestParamsRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, query, contentType, body string
		status                                 int    // 0: read
		want                                   string // status=… when read, the parameter named when refused
	}{
		{"get", "GET", "status=q", "application/json", `{"status": "b"}`, 0, "q"},
		{"form", "POST", "", "application/x-www-form-urlencoded", "status=f", 0, "f"},
		{"no type", "POST", "", "", "status=f", 0, "f"},
		{"json", "POST", "", "application/json; charset=utf-8", `{"status": "j"}`, 0, "j"},
		{"json suffix", "POST", "", "application/vnd.api+json", `{"status": "j"}`, 0, "j"},
		{"query alone", "POST", "status=q", "", "", 0, "q"},
		{"query beside body", "POST", "visibility=public", "application/json", `{"status": "j"}`, 0, "j"},
		{"query and body", "POST", "status=q", "application/json", `{"status": "b"}`, 422, "status"},
		{"query and form", "POST", "status=q", "application/x-www-form-urlencoded", "status=b", 422, "status"},
		{"text/plain", "POST", "", "text/plain", "status=t", 415, "text/plain"},
		{"xml", "POST", "", "application/xml", "<status/>", 415, "application/xml"},
		{"json object", "POST", "", "application/json", `{"status": {"text": "x"}}`, 422, "status"},
		{"json empty object", "POST", "", "application/json", `{"status": {}}`, 422, "status"},
		{"json array", "POST", "", "application/json", `{"status": ["x"]}`, 422, "status"},
		{"json list of ids", "POST", "", "application/json", `{"status": "x", "media_ids": []}`, 0, "x"},
		{"form array", "POST", "", "application/x-www-form-urlencoded", "status[]=x", 422, "status"},
		{"form object", "POST", "", "application/x-www-form-urlencoded", "status[text]=x", 422, "status"},
		{"form twice", "POST", "", "application/x-www-form-urlencoded", "status=a&status=b", 422, "status"},
		{"query twice", "GET", "limit=1&limit=2", "", "", 422, "limit"},
		{"query array", "GET", "max_id[]=1", "", "", 422, "max_id"},
		{"list in the query", "GET", "id[]=1&id[]=2&status=s", "", "", 0, "s"},
	} {
		r := httptest.NewRequest(tc.method, "/x?"+tc.query, strings.NewReader(tc.body))
		r.Header.Set("Content-Type", tc.contentType)
		v, err := Params(r)
		pe, _ := err.(*paramError)
		switch {
		case tc.status == 0 && (err != nil || v.Get("status") != tc.want):
			t.Errorf("%s: %q, %v; want status=%s", tc.name, v, err, tc.want)
		case tc.status != 0 && (pe == nil || pe.status != tc.status || !strings.Contains(pe.msg, tc.want)):
			t.Errorf("%s: %q, %v; want %d naming %s", tc.name, v, err, tc.status, tc.want)
		}
	}
}

// TestAttributes: an array of objects as forms send it (name[][key],
// the n-th value of each key the n-th object's, or name[i][key]) and as
// JSON bodies do, in order, each with the keys given; other keys and
// parameters are left out.
func TestAttributes(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]url.Values{
		"form":    {"m[][id]": {"1", "2"}, "m[][description]": {"a", "b"}, "m[][other]": {"x"}, "n[][id]": {"3"}},
		"indexed": {"m[1][id]": {"2"}, "m[0][id]": {"1"}, "m[0][description]": {"a"}, "m[1][description]": {"b"}},
	} {
		got := Attributes(v, "m", "id", "description")
		want := []map[string]string{{"id": "1", "description": "a"}, {"id": "2", "description": "b"}}
		if !slices.EqualFunc(got, want, maps.Equal) {
			t.Errorf("%s: %v; want %v", name, got, want)
		}
	}
}

// TestDataURI: a base64 data URI gives its content; anything else none.
func TestDataURI(t *testing.T) {
	t.Parallel()
	if got := DataURI("data:image/png;base64,aGVsbG8="); string(got) != "hello" {
		t.Errorf("a data URI: %q", got)
	}
	for _, s := range []string{"", "hello", "data:image/png,hello", "data:image/png;base64,!!", "https://example.com/a.png"} {
		if got := DataURI(s); got != nil {
			t.Errorf("DataURI(%q) = %q; want nil", s, got)
		}
	}
}
