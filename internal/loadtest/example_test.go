package loadtest_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/retwis/retwis/internal/loadtest"
)

func ExampleRun() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" {
			http.Redirect(w, r, "/", http.StatusSeeOther) // not followed, and not an error
			return
		}
		fmt.Fprint(w, "timeline")
	}))
	defer srv.Close()

	res, err := loadtest.Run(context.Background(), loadtest.Options{
		BaseURL:     srv.URL,
		Connections: 4,
		Duration:    100 * time.Millisecond,
		Cookies:     []string{"secret-of-alice", "secret-of-bob"},
		CookieName:  "auth",
		// Nine reads for every post.
		Next: func(conn int, rng *rand.Rand) loadtest.Request {
			if rng.IntN(10) == 0 {
				return loadtest.Request{Method: "POST", Path: "/post", Form: url.Values{"status": {"hello"}}}
			}
			return loadtest.Request{Method: "GET", Path: "/"}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// res.String() gives the full one-line report; its figures vary.
	fmt.Println("requests sent:", res.Requests > 0)
	fmt.Println("errors:", res.Errors)
	// Output:
	// requests sent: true
	// errors: 0
}
