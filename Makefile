# The two commands of the README: `make run` and `make test`.
GO ?= go
# The race detector needs cgo, hence a C compiler.
RACE := $(shell command -v gcc >/dev/null 2>&1 && echo -race)

.PHONY: run test test-faults test-times screenshot build packages vet

## run: compile retwis and start it on http://127.0.0.1:8080 (RETWIS_ADDR for
## another address) with an embedded redis-server; Ctrl-C stops both
run:
	-@sh scripts/ensure-packages.sh redis-server=redis-server || echo "redis-server could not be installed: install it, or give retwis a Redis with REDIS_URL=redis://host:port" >&2
	@echo "compiling retwis (the first time takes about a minute on 2 cores)…" >&2
	@$(GO) build -o retwis ./cmd/retwis
	@./retwis serve

# FAULTS are the load-and-fault tests on a cluster with replicas whose
# masters fail: the share of requests served under load, writes whole or
# absent. They run last, alone, so that the rest of the suite does not
# load the machine they measure.
FAULTS := ^(TestFailoverLosesNothing|TestFaultsLeaveNoHalfWrites)$$

# FIRST are the packages whose tests take longest, started first so
# that the others run beside them rather than after.
FIRST := ./internal/web ./cmd/retwis ./internal/store ./redlock ./internal/api ./internal/store/bulk ./internal/redisserver

# TESTFLAGS are those of make test's run of the tests.
TESTFLAGS = $(RACE) -count=1 -parallel 8 -skip '$(FAULTS)'

## test: vet and run every test against real redis-server processes (and
## headless Chromium for the browser tests, Node.js for the Mastodon
## client libraries of npm, SeaweedFS's S3 server for the S3 blob store,
## built once by scripts/s3-server.sh), tests of a package side by side; then fuzz
## every parser of untrusted input for a second each; then the
## load-and-fault tests. RETWIS_NEED_NODE makes a missing Node.js a
## failure, not a skip.
test: packages vet
	RETWIS_NEED_NODE=1 $(GO) test $(TESTFLAGS) $(FIRST) ./...
	sh scripts/fuzz.sh
	@$(MAKE) --no-print-directory test-faults

## test-times: run the tests as make test does, their events kept in
## test-times.json, and list the slowest packages and tests
## (scripts/test-times.sh)
test-times: packages
	RETWIS_NEED_NODE=1 $(GO) test -json $(TESTFLAGS) $(FIRST) ./... >test-times.json || true
	@sh scripts/test-times.sh test-times.json

## test-faults: the load-and-fault tests alone
test-faults: packages
	$(GO) test $(RACE) -count=1 -run '$(FAULTS)' ./internal/store/

## screenshot: renew the README's pictures in docs/screenshots (home.png, the
## home page on a desktop; phone.png, on a phone; post.png, a post's page
## with its content warning open; dark.png, the global timeline on a phone
## in the dark theme) with the browser test that takes them,
## TestScreenshotsInBrowser, skipped unless RETWIS_SCREENSHOTS names the folder
screenshot: packages
	mkdir -p docs/screenshots
	RETWIS_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run '^TestScreenshotsInBrowser$$' ./internal/web/

## build: build the retwis binary
build:
	$(GO) build -o retwis ./cmd/retwis

vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed on:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

packages:
	@sh scripts/ensure-packages.sh redis-server=redis-server redis-cli=redis-server chromium=chromium node=nodejs npm=npm
	@GO=$(GO) sh scripts/s3-server.sh
