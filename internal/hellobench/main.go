// Command hellobench is a command, not part of retwis: the bare Go
// server that scripts/bench-static.sh serves beside `retwis serve`, the
// ceiling of what net/http answers on the machine of the run. It answers
// every request with a short text, or with the bytes of a file given
// (the same bytes as retwis's static route, to tell the cost of the
// middleware from that of the body), and nothing else: no middleware,
// no log, no metrics.
//
// Usage: go run ./internal/hellobench 127.0.0.1:18091 [file]
package main

import (
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hellobench <addr> [file]")
		os.Exit(2)
	}
	body, ctype := []byte("Hello, world!\n"), "text/plain; charset=utf-8"
	if len(os.Args) == 3 {
		var err error
		if body, err = os.ReadFile(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "hellobench:", err)
			os.Exit(1)
		}
		ctype = mime.TypeByExtension(filepath.Ext(os.Args[2]))
	}
	err := http.ListenAndServe(os.Args[1], http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}))
	fmt.Fprintln(os.Stderr, "hellobench:", err)
	os.Exit(1)
}
