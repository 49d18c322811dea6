package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// newRegistry returns the registry of a server's metrics, with the Go
// runtime's and the process's.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// serveMetrics serves reg at /metrics on addr, apart from the pages, so
// that the metrics can stay on a private address, and the Go profiler at
// /debug/pprof/ (the profiles that docs/PERFORMANCE.md explains come
// from a server under load). stop closes it.
//
// With fallback (addr is the default, not chosen by the operator), an
// addr already in use, as by another server on the same host, gives way
// to a free port on the same interface, which the log names.
func serveMetrics(addr string, fallback bool, reg *prometheus.Registry, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil && fallback && errors.Is(err, syscall.EADDRINUSE) {
		host, _, _ := net.SplitHostPort(addr)
		if ln, err = net.Listen("tcp", net.JoinHostPort(host, "0")); err == nil {
			log.Warn("the default metrics address is in use (another retwis on this host?): metrics are served on a free port; "+
				"choose one with --metrics-addr (RETWIS_METRICS_ADDR)", "in_use", addr, "url", "http://"+ln.Addr().String()+"/metrics")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr (RETWIS_METRICS_ADDR) %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	log.Info("metrics are served", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() { srv.Close() }, nil
}
