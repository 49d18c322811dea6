// Package redsync compares retwis's redlock with go-redsync, the usual Go
// Redlock, in one process, on the same local redis-server instances (1
// and 5), through the same Redis client library (rueidis): an acquire and
// a release one at a time (p50, p99) and from 16 goroutines on distinct
// names (throughput), each with its costs per operation (CPU of the
// client process and of the servers, the servers' socket reads).
//
// It is a module of its own so that go-redsync and the client adapters it
// pulls in stay out of retwis's dependencies; `make test` does not run it.
// scripts/bench-redsync.sh runs it in interleaved rounds and prints the
// medians and the ratios to go-redsync; one run by hand:
//
//	cd bench/redsync && go test -run '^$' -bench . -benchtime 2s -count 3
package redsync
