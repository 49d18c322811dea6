package instance

import (
	"os"
	"testing"

	"github.com/retwis/retwis/internal/testkit/openapitest"
)

// TestOpenAPIEntities checks the instance's schemas in the client API's
// document against the structs the handlers encode.
func TestOpenAPIEntities(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := openapitest.Load(t, src)
	for name, v := range map[string]any{"InstanceV1": instanceV1{}, "InstanceV2": instanceV2{}, "Configuration": configV1{},
		"ConfigurationV2": configV2{}, "Rule": rule{}, "ActivityWeek": week{}} {
		openapitest.CheckSchema(t, doc, name, v, nil)
	}
}
