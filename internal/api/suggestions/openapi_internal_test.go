package suggestions

import (
	"os"
	"testing"

	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// TestOpenAPIEntities checks the Suggestion schema of the client API's
// document against the struct the handler encodes.
func TestOpenAPIEntities(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := openapitest.Load(t, src)
	openapitest.CheckSchema(t, doc, "Suggestion", Suggestion{}, nil)
}
