// Command hellobench is a command, not part of retwis: the bare Go
// server that scripts/bench-static.sh serves beside `retwis serve`, the
// ceiling of what net/http answers on the machine of the run. It answers
// every request with a short text and nothing else: no middleware, no
// log, no metrics.
//
// Usage: go run ./internal/hellobench 127.0.0.1:18091
package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hellobench <addr>")
		os.Exit(2)
	}
	hello := []byte("Hello, world!\n")
	err := http.ListenAndServe(os.Args[1], http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(hello)
	}))
	fmt.Fprintln(os.Stderr, "hellobench:", err)
	os.Exit(1)
}
