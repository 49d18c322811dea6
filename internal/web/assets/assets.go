// Package assets holds the static files of the pages (static/: the
// style sheet, images and the two small scripts the pages work without),
// embedded in the binary, and serves them from memory: each read, hashed
// and gzipped once, when the server starts.
package assets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var staticFS embed.FS

// staticFile is one file of static/, read once when the server starts,
// with the headers of its answers built then too: serving it copies
// them and writes the bytes, and opens, stats or sniffs nothing.
type staticFile struct {
	plain, gzipped staticBody // gzipped.body is nil when gzip saves nothing
}

// staticBody is one encoding of a static file: its bytes and the headers
// that go with them.
type staticBody struct {
	body   []byte
	etag   string
	header http.Header
}

// staticMaxAge is how long a browser keeps a static file before it asks
// again (with If-None-Match, answered 304 while the file is the same).
const staticMaxAge = "public, max-age=3600"

// Handler serves the files of static/ under /static/, and no listing of it: a
// directory, or any other path, is not found. Each file carries an ETag
// (a digest of its bytes) and is answered 304 Not Modified to a browser
// that has it; a text file is sent gzipped to a client that accepts
// gzip, compressed once at start.
func Handler() http.Handler {
	files := loadStatic()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[strings.TrimPrefix(r.URL.Path, "/static/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.serve(w, r)
	})
}

// loadStatic reads every file of static/ by its path under it.
func loadStatic() map[string]*staticFile {
	files := map[string]*staticFile{}
	sub, _ := fs.Sub(staticFS, "static")
	err := fs.WalkDir(sub, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(sub, name)
		if err != nil {
			return err
		}
		files[name] = newStaticFile(name, body)
		return nil
	})
	if err != nil {
		panic("assets: the embedded static files: " + err.Error()) // embedded: cannot fail
	}
	return files
}

// newStaticFile builds the answers of the file name, of the given bytes.
func newStaticFile(name string, body []byte) *staticFile {
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	f := &staticFile{plain: newStaticBody(body, ctype, etag, "")}
	if gz := gzipped(body); len(gz) < len(body)*9/10 {
		f.plain.header["Vary"] = []string{"Accept-Encoding"}
		f.gzipped = newStaticBody(gz, ctype, etag[:len(etag)-1]+`-gzip"`, "gzip")
	}
	return f
}

func newStaticBody(body []byte, ctype, etag, encoding string) staticBody {
	h := http.Header{
		"Content-Type":   {ctype},
		"Content-Length": {strconv.Itoa(len(body))},
		"Cache-Control":  {staticMaxAge},
		"Etag":           {etag},
	}
	if encoding != "" {
		h["Content-Encoding"] = []string{encoding}
		h["Vary"] = []string{"Accept-Encoding"}
	}
	return staticBody{body: body, etag: etag, header: h}
}

// gzipped returns body compressed with gzip at the best compression.
func gzipped(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	zw.Write(body)                                           // into a bytes.Buffer: no error
	zw.Close()
	return buf.Bytes()
}

// serve answers r with the file: gzipped if r accepts it and that is
// smaller, 304 if r's If-None-Match names it already.
func (f *staticFile) serve(w http.ResponseWriter, r *http.Request) {
	b := &f.plain
	if f.gzipped.body != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		b = &f.gzipped
	}
	h := w.Header()
	for k, v := range b.header {
		h[k] = v // shared, never changed: every answer sets, none appends
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, b.etag) {
		delete(h, "Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(b.body)
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip:
// named, or else by *, without q=0.
func acceptsGzip(accept string) bool {
	star := false
	for part := range strings.SplitSeq(accept, ",") {
		coding, params, _ := strings.Cut(part, ";")
		switch strings.TrimSpace(coding) {
		case "gzip":
			return qualityAbove0(params)
		case "*":
			star = qualityAbove0(params)
		}
	}
	return star
}

// qualityAbove0 reports whether the parameters of a coding ("q=0.5")
// leave its quality above 0; without q it is 1.
func qualityAbove0(params string) bool {
	q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
	if !ok {
		return true
	}
	v, err := strconv.ParseFloat(q, 64)
	return err == nil && v > 0
}

// etagMatches reports whether an If-None-Match header names etag: "*",
// or among its tags, weak (W/) or strong.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}
