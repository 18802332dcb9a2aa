# codemode-conformance: the two commands a new user needs are
#   make conformance   run every suite against the embedded reference runtime
#   make test          run all tests (unit, suites under go test, broken variants, CONFORMANCE.md freshness)
GO      ?= go
TARGET  ?= builtin
RESULTS ?= results

.PHONY: all build conformance conformance-exec conformance-md test vet fmt fuzz bench clean openclaw-install openclaw-conformance

all: build

build:
	$(GO) build -o bin/codemode-conformance ./tools/codemode-conformance
	$(GO) build -o bin/codemode-reference ./reference/cmd/codemode-reference

## conformance: the whole suite against TARGET (default: the embedded reference), reports in RESULTS/
conformance: build
	./bin/codemode-conformance run --target "$(TARGET)" --results-dir "$(RESULTS)"

## conformance-exec: the same, with the reference as a separate process over stdio
conformance-exec: build
	./bin/codemode-conformance run --target "exec:$(CURDIR)/bin/codemode-reference serve --stdio" --results-dir "$(RESULTS)-exec"

## conformance-md: regenerate CONFORMANCE.md from a run against the reference
conformance-md: build
	./bin/codemode-conformance run --target builtin --results-dir "$(RESULTS)" >/dev/null || true
	$(GO) run ./tools/conformance-md --report "$(RESULTS)/report.json" --out CONFORMANCE.md

## openclaw-install: install Node 24 + the pinned OpenClaw into the target's cache (npm and the network, once)
OPENCLAW_VERSION ?= 2026.7.35
OPENCLAW_REPORT  ?= reports/openclaw-$(OPENCLAW_VERSION)
openclaw-install:
	$(GO) run ./targets/openclaw/cmd/openclaw-install $(OPENCLAW_VERSION)

## openclaw-conformance: every suite against the real OpenClaw (target openclaw:$(OPENCLAW_VERSION)) with its
## committed expected-failures baseline; writes conformance-report.yaml, summary.md and junit.xml to
## $(OPENCLAW_REPORT)/ (full results in $(RESULTS)-openclaw). Fails on drift from the baseline.
openclaw-conformance: build openclaw-install
	./bin/codemode-conformance run --target "openclaw:$(OPENCLAW_VERSION)" --results-dir "$(RESULTS)-openclaw" \
		--expected-failures "$(OPENCLAW_REPORT)/expected-failures.yaml"; rc=$$?; \
	cp "$(RESULTS)-openclaw/conformance-report.yaml" "$(RESULTS)-openclaw/summary.md" "$(OPENCLAW_REPORT)/" && \
	sed -e 's|$(CURDIR)/||g' -e 's|$(CURDIR)|.|g' "$(RESULTS)-openclaw/junit.xml" > "$(OPENCLAW_REPORT)/junit.xml" && exit $$rc

## fuzz: run each fuzz target for FUZZTIME (their seed corpora already run under make test)
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./spec/config -run=^$$ -fuzz=FuzzResolve -fuzztime=$(FUZZTIME)
	$(GO) test ./reference/catalog -run=^$$ -fuzz=FuzzBuild -fuzztime=$(FUZZTIME)
	$(GO) test ./reference/moduleaccess -run=^$$ -fuzz=FuzzCheck -fuzztime=$(FUZZTIME)

## bench: engine and runtime benchmarks (compare runs with benchstat)
bench:
	$(GO) test ./reference/... -run=^$$ -bench=. -benchmem -count=6 | tee bench.txt

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

test: vet
	$(GO) test -count=1 -timeout 20m ./...

clean:
	rm -rf bin $(RESULTS) $(RESULTS)-exec $(RESULTS)-openclaw
