package api

import (
	_ "embed"
	"net/http"
)

// openAPI is the OpenAPI 3.1 description of the API retwis implements.
//
//go:embed openapi.json
var openAPI []byte

// serveOpenAPI answers GET /api/v1/openapi.json.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(openAPI)
}
