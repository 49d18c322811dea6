package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxParams bounds the parameters of one request, however sent.
const maxParams = 200

// params returns a request's parameters, as Mastodon reads them: the
// query string, and the body, sent as application/json,
// application/x-www-form-urlencoded or multipart/form-data (libraries
// differ in what they send). A JSON body's arrays become repeated
// "name[]" values and its objects "name[key]" ones, as Rails reads
// forms. A body that cannot be read is an error fit to show.
func params(r *http.Request) (url.Values, error) {
	v := r.URL.Query()
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil || r.ContentLength == 0 {
		return v, countParams(v)
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil && r.Header.Get("Content-Type") != "" {
		return nil, unreadable("The Content-Type header cannot be read.")
	}
	switch ct {
	case "application/json":
		if err := jsonParams(r.Body, v); err != nil {
			return nil, err
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxBodyBytes); err != nil {
			return nil, bodyError(err, "The multipart form cannot be read.")
		}
		merge(v, r.MultipartForm.Value)
	default: // form-encoded, also when the type is missing
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err, "The request body cannot be read.")
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, unreadable("The form-encoded body cannot be read.")
		}
		merge(v, form)
	}
	return v, countParams(v)
}

// paramError is a request whose parameters cannot be read: its status
// (400, or 413 for a body too large) and a message fit to show.
type paramError struct {
	status int
	msg    string
}

func (e *paramError) Error() string { return e.msg }

// unreadable is a paramError of status 400.
func unreadable(msg string) error { return &paramError{http.StatusBadRequest, msg} }

// bodyError is the error of a body that could not be read: too big, or
// else msg.
func bodyError(err error, msg string) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &paramError{http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is larger than %d bytes.", maxBodyBytes)}
	}
	return unreadable(msg)
}

func countParams(v url.Values) error {
	n := 0
	for _, vals := range v {
		n += len(vals)
	}
	if n > maxParams {
		return unreadable(fmt.Sprintf("A request has at most %d parameters.", maxParams))
	}
	return nil
}

func merge(dst, src url.Values) {
	for k, vals := range src {
		dst[k] = append(dst[k], vals...)
	}
}

// jsonParams reads a JSON object into v.
func jsonParams(body io.Reader, v url.Values) error {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return bodyError(err, "The JSON body cannot be read: it must be one JSON object.")
	}
	if dec.More() {
		return unreadable("The JSON body cannot be read: it must be one JSON object.")
	}
	for k, val := range obj {
		flatten(v, k, val, 0)
	}
	return nil
}

// flatten enters a JSON value into v under name, as a form would send
// it.
func flatten(v url.Values, name string, val any, depth int) {
	switch x := val.(type) {
	case nil:
	case []any:
		for _, e := range x {
			if depth < 3 {
				flatten(v, name+"[]", e, depth+1)
			}
		}
	case map[string]any:
		for k, e := range x {
			if depth < 3 {
				flatten(v, name+"["+k+"]", e, depth+1)
			}
		}
	case string:
		v.Add(name, x)
	case bool:
		v.Add(name, strconv.FormatBool(x))
	case json.Number:
		v.Add(name, x.String())
	}
}

// list returns the values of an array parameter: "name[]" (and "name",
// as some libraries send it).
func list(v url.Values, name string) []string {
	return append(append([]string(nil), v[name+"[]"]...), v[name]...)
}

// flag reads a boolean parameter as Rails does ("true", "1", "on").
func flag(v url.Values, name string) bool {
	switch strings.ToLower(v.Get(name)) {
	case "true", "1", "on", "yes":
		return true
	}
	return false
}
