package apiwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retwis/retwis"
)

const (
	// MaxBodyBytes caps request bodies: a status and its fields, or a
	// profile's, fit many times over.
	MaxBodyBytes = 64 << 10
	// maxParams bounds the parameters of one request, however sent.
	maxParams = 200
	// maxIDs bounds the ids of an array parameter (IDs).
	maxIDs = 100
)

// Params returns a request's parameters by one rule. A GET (or HEAD)
// has them in its query string. Any other request has them in its body
// when it has one, read as its media type says: application/json (or
// any +json type), application/x-www-form-urlencoded (also when the type
// is missing, as Rack reads it) or multipart/form-data; another type is
// refused (415), never guessed. Its query string may add parameters the
// body does not give, as Rails merges them, but one given in both is
// refused (422), not decided by where it came from. A JSON body's arrays
// become repeated "name[]" values (arrays of objects "name[0][key]",
// "name[1][key]"…) and its objects "name[key]" ones, as Rails reads
// forms; a parameter the API reads as one value
// (scalarParams) sent as an array, an object or more than once is
// refused (422) naming it, not silently missed. Every error is a
// paramError fit to show (see ParamStatus).
func Params(r *http.Request) (url.Values, error) {
	v := r.URL.Query()
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil || r.ContentLength == 0 {
		return v, checkParams(v)
	}
	body, err := bodyParams(r)
	if err != nil {
		return nil, err
	}
	for k := range body {
		if _, ok := v[k]; ok {
			return nil, &paramError{http.StatusUnprocessableEntity, fmt.Sprintf("The parameter %s is given both in the query string and in the body: send it once.", k)}
		}
	}
	merge(v, body)
	return v, checkParams(v)
}

// bodyParams reads the parameters of a request's body, by its media
// type (see params).
func bodyParams(r *http.Request) (url.Values, error) {
	header := r.Header.Get("Content-Type")
	ct, _, err := mime.ParseMediaType(header)
	if err != nil && header != "" {
		return nil, unreadable("The Content-Type header cannot be read.")
	}
	v := url.Values{}
	switch {
	case ct == "application/json" || strings.HasPrefix(ct, "application/") && strings.HasSuffix(ct, "+json"):
		return v, jsonParams(r.Body, v)
	case ct == "multipart/form-data":
		if err := r.ParseMultipartForm(MaxBodyBytes); err != nil {
			return nil, bodyError(err, "The multipart form cannot be read.")
		}
		merge(v, r.MultipartForm.Value)
		return v, nil
	case ct == "application/x-www-form-urlencoded" || header == "":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, bodyError(err, "The request body cannot be read.")
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, unreadable("The form-encoded body cannot be read.")
		}
		return form, nil
	}
	return nil, &paramError{http.StatusUnsupportedMediaType,
		fmt.Sprintf("A body of type %s cannot be read: send application/json, application/x-www-form-urlencoded or multipart/form-data.", ct)}
}

// scalarParams are the parameters the API reads as one value: a text, a
// number, an id or a flag.
var scalarParams = []string{
	"status", "in_reply_to_id", "visibility", "spoiler_text", "sensitive", "language", "scheduled_at",
	"display_name", "note", "locked", "bot", "discoverable",
	"client_name", "website", "scopes", "scope", "grant_type", "code", "redirect_uri", "code_verifier",
	"client_id", "client_secret", "token",
	"max_id", "min_id", "since_id", "limit", "offset", "q", "type", "resolve", "following", "account_id",
	"only_media", "pinned", "exclude_replies", "remote", "local", "category", "comment", "forward",
	"reblogs", "notify", "description", "focus",
}

// notOneValue is the error of a parameter of scalarParams not given as
// one value.
func notOneValue(name string) error {
	return &paramError{http.StatusUnprocessableEntity, fmt.Sprintf("The parameter %s takes one value, not a list, an object or several.", name)}
}

// checkParams checks what params read: at most maxParams values, each
// of scalarParams once and as one value.
func checkParams(v url.Values) error {
	if err := countParams(v); err != nil {
		return err
	}
	for k, vals := range v {
		name, _, nested := strings.Cut(k, "[")
		if !slices.Contains(scalarParams, name) {
			continue
		}
		if nested || len(vals) > 1 {
			return notOneValue(name)
		}
	}
	return nil
}

// paramError is a request whose parameters cannot be read: its status
// (400, or 413 for a body too large) and a message fit to show.
type paramError struct {
	status int
	msg    string
}

func (e *paramError) Error() string { return e.msg }

// ParamStatus is the status of an error of Params: 400, 413 for a body
// too large, 415 for one of a media type not read, 422 for a parameter
// of the wrong shape; 400 for any other error.
func ParamStatus(err error) int {
	if pe, ok := errors.AsType[*paramError](err); ok {
		return pe.status
	}
	return http.StatusBadRequest
}

// unreadable is a paramError of status 400.
func unreadable(msg string) error { return &paramError{http.StatusBadRequest, msg} }

// bodyError is the error of a body that could not be read: too big, or
// else msg.
func bodyError(err error, msg string) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &paramError{http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is larger than %d bytes.", MaxBodyBytes)}
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

// jsonParams reads a JSON object into v. An array or object given for
// one of scalarParams is refused, even empty.
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
		switch val.(type) {
		case []any, map[string]any:
			if slices.Contains(scalarParams, k) {
				return notOneValue(k)
			}
		}
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
		for i, e := range x {
			if depth >= 3 {
				break
			}
			if _, object := e.(map[string]any); object { // indexed, or its keys would mix with the next one's
				flatten(v, name+"["+strconv.Itoa(i)+"]", e, depth+1)
			} else {
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

// List returns the values of an array parameter: "name[]" (and "name",
// as some libraries send it).
func List(v url.Values, name string) []string {
	return append(append([]string(nil), v[name+"[]"]...), v[name]...)
}

// Flag reads a boolean parameter as Rails does ("true", "1", "on").
func Flag(v url.Values, name string) bool {
	switch strings.ToLower(v.Get(name)) {
	case "true", "1", "on", "yes":
		return true
	}
	return false
}

// IDs reads an array parameter of ids (at most 100); an error is of
// kind Invalid.
func IDs(v url.Values, name string) ([]int64, error) {
	raw := List(v, name)
	if len(raw) > maxIDs {
		return nil, retwis.Errorf(retwis.Invalid, "At most %d ids at once.", maxIDs)
	}
	ids := make([]int64, 0, len(raw))
	for _, s := range raw {
		id, ok := retwis.ParseID(s)
		if !ok {
			return nil, retwis.Errorf(retwis.Invalid, "%s[] must be ids.", name)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Attributes reads an array parameter of objects, name (as
// keywords_attributes or media_attributes), with the keys fields: as
// forms send it (name[][key]=…, the n-th value of each key the n-th
// object's; or name[0][key]=…, by index) and as JSON bodies do (an
// array of objects, which Params indexes). The objects come in order,
// each with the keys given for it.
func Attributes(v url.Values, name string, fields ...string) []map[string]string {
	pattern := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `\[(\d*)\]\[(` + strings.Join(fields, "|") + `)\]$`)
	byIndex := map[string]map[string]string{}
	for param, vals := range v {
		m := pattern.FindStringSubmatch(param)
		if m == nil {
			continue
		}
		for i, val := range vals {
			key := m[1]
			if key == "" {
				key = "#" + strconv.Itoa(i)
			}
			if byIndex[key] == nil {
				byIndex[key] = map[string]string{}
			}
			byIndex[key][m[2]] = val
		}
	}
	keys := slices.Collect(maps.Keys(byIndex))
	slices.SortFunc(keys, func(a, b string) int { return attributeOrder(a) - attributeOrder(b) })
	out := make([]map[string]string, len(keys))
	for i, k := range keys {
		out[i] = byIndex[k]
	}
	return out
}

// attributeOrder is the place of an index of Attributes ("3" or "#3").
func attributeOrder(key string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(key, "#"))
	return n
}
