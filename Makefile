# codemode-conformance: the two commands a new user needs are
#   make conformance   run every suite against the embedded reference runtime
#   make test          run all tests (unit, suites under go test, broken variants, the CLI, the embedding example in
#                      examples/embed, repository hygiene, CONFORMANCE.md freshness)
GO      ?= go
TARGET  ?= builtin
RESULTS ?= results
# PROFILE: the contract profile to judge (v1 or v2; empty: what the target declares, builtin serves it)
PROFILE ?=

.PHONY: all engine build conformance conformance-exec conformance-md mcp-golden test vet fmt fuzz bench clean openclaw-install openclaw-conformance openclaw-rejudge openclaw-matrix openclaw-triage diff-openclaw container-image conformance-container

all: build

## engine: the reference's JavaScript engine, quickjs.wasm from the npm package quickjs-wasi (QuickJS-NG),
## installed from reference/engine/quickjs/package-lock.json (pinned by integrity) and copied into
## reference/engine/wasm/ (gitignored), which the Go build embeds. Needs npm and the registry once.
ENGINE_WASM = reference/engine/wasm/quickjs.wasm
ENGINE_PKG  = reference/engine/quickjs
engine: $(ENGINE_WASM)
$(ENGINE_WASM): $(ENGINE_PKG)/package-lock.json
	cd $(ENGINE_PKG) && npm ci --ignore-scripts --no-audit --no-fund
	cp $(ENGINE_PKG)/node_modules/quickjs-wasi/quickjs.wasm $@

build: engine
	$(GO) build -o bin/codemode-conformance ./tools/codemode-conformance
	$(GO) build -o bin/codemode-reference ./reference/cmd/codemode-reference

## conformance: the whole suite against TARGET (default: the embedded reference) under PROFILE, reports in RESULTS/
## PROCS: processes sharing the specs (run --procs; Serial specs run alone at the end), verdicts as a serial run's
PROCS ?= 4
conformance: build
	./bin/codemode-conformance run --target "$(TARGET)" $(if $(PROFILE),--profile "$(PROFILE)") --procs "$(PROCS)" --results-dir "$(RESULTS)"

## conformance-exec: the same, with the reference as a separate process over stdio
conformance-exec: build
	./bin/codemode-conformance run --target "exec:$(CURDIR)/bin/codemode-reference serve --stdio" --results-dir "$(RESULTS)-exec"

## container-image: the reference as a FROM scratch image, CONTAINER_IMAGE (a static codemode-reference
## serving the driver protocol on its one EXPOSEd port; built locally, no registry needed; needs Docker)
CONTAINER_IMAGE ?= codemode-reference:local
container-image: build
	mkdir -p bin/container
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/container/codemode-reference ./reference/cmd/codemode-reference
	docker build -q -f targets/container/image/Dockerfile -t "$(CONTAINER_IMAGE)" bin/container

## conformance-container: the whole suite against that image as target container:$(CONTAINER_IMAGE)
## (testcontainers-go starts it, the protocol goes over TCP), reports in RESULTS-container/; then fails if
## any container of the image's target is left behind (every one is labelled org.codemode-conformance.target)
conformance-container: container-image
	./bin/codemode-conformance run --target "container:$(CONTAINER_IMAGE)" --results-dir "$(RESULTS)-container"; rc=$$?; \
	left=$$(docker ps -aq --filter "label=org.codemode-conformance.target=container:$(CONTAINER_IMAGE)"); \
	if [ -n "$$left" ]; then echo "containers left behind by the run: $$left"; exit 1; fi; exit $$rc

## reference-runs: every suite against the reference per profile (v1: builtin in RESULTS/; v2: the built reference
## as a separate process, serve --profile v2, in RESULTS-v2/), the runs CONFORMANCE.md and the site are made from
.PHONY: reference-runs
reference-runs: build
	./bin/codemode-conformance run --target builtin --profile v1 --results-dir "$(RESULTS)" >/dev/null || true
	./bin/codemode-conformance run --target "exec:$(CURDIR)/bin/codemode-reference serve --stdio --profile v2" --profile v2 --results-dir "$(RESULTS)-v2" >/dev/null || true

## conformance-md: regenerate CONFORMANCE.md from the reference runs (reference-runs) and the committed reports
conformance-md: reference-runs
	$(GO) run ./tools/conformance-md --report "$(RESULTS)/report.json" --profile-report v2="$(RESULTS)-v2/report.json" --out CONFORMANCE.md

## site: the static comparison site in SITE/ (default site/, gitignored; tools/site, docs/reports.md): requirements ×
## implementations, a page per implementation, evidence, the differential ledger, shields.io badges, generated from the
## reference runs (reference-runs) and the committed reports/ only. Open SITE/index.html; no server or JavaScript needed.
SITE ?= site
.PHONY: site
site: reference-runs
	$(GO) run ./tools/site/cmd/site --reference v1="$(RESULTS)" --reference v2="$(RESULTS)-v2" --out "$(SITE)"

## mcp-golden: rewrite suites/mcp/testdata/*.d.ts from the reference's rendering of the fake MCP servers
## (the CM-MCP-03 golden specs write instead of comparing); review the diff before committing it
mcp-golden: engine
	$(GO) test ./suites/mcp -count=1 -run TestMCP -update -ginkgo.focus='golden file'

## openclaw-install: install Node 24 + the pinned OpenClaw into the target's cache (npm and the network, once)
OPENCLAW_VERSION ?= 2026.7.35
# OPENCLAW_EXECUTOR: empty for OpenClaw's default executor; quickjs selects 2026.9.6's bundled QuickJS
# executor (target openclaw:2026.9.6+quickjs, report reports/openclaw-2026.9.6-quickjs):
# make openclaw-conformance OPENCLAW_VERSION=2026.9.6 OPENCLAW_PROFILE=v2 OPENCLAW_EXECUTOR=quickjs
OPENCLAW_EXECUTOR ?=
# OPENCLAW_LABEL_FILTER: a --label-filter for the run. The QuickJS report judges what the executor changes (the
# isolation, security and limits specs, CM-EXEC-16 and the executor specs; the Node target's report judges the rest),
# so OPENCLAW_EXECUTOR=quickjs defaults to that selection (reports/openclaw-2026.9.6-quickjs/README.md "Runs");
# OPENCLAW_LABEL_FILTER= (empty) runs every suite.
OPENCLAW_QUICKJS_SCOPE := area:SEC || area:LIM || feature:isolation || req:CM-EXEC-16 || req:CM-CFG-08 || req:CM-CFG-09 || req:CM-RUN-07 || req:CM-RUN-08
OPENCLAW_LABEL_FILTER ?= $(if $(filter quickjs,$(OPENCLAW_EXECUTOR)),$(OPENCLAW_QUICKJS_SCOPE))
OPENCLAW_REPORT  ?= reports/openclaw-$(OPENCLAW_VERSION)$(if $(OPENCLAW_EXECUTOR),-$(OPENCLAW_EXECUTOR))
# OPENCLAW_PROFILE: the profile to judge (empty: the one the target declares);
# generation 2: make openclaw-conformance OPENCLAW_VERSION=2026.9.6 OPENCLAW_PROFILE=v2
OPENCLAW_PROFILE ?=
OPENCLAW_RESULTS ?= $(RESULTS)-openclaw
# OPENCLAW_COPY_REPORTS: the committed copy of a run's reports (openclaw-conformance, openclaw-rejudge): the YAML and
# summary as they are, junit.xml without local paths, Ginkgo's per-spec logs and the transcripts.
OPENCLAW_COPY_REPORTS = mkdir -p "$(OPENCLAW_REPORT)" && cp "$(OPENCLAW_RESULTS)/conformance-report.yaml" "$(OPENCLAW_RESULTS)/summary.md" "$(OPENCLAW_REPORT)/" && \
	sed -e 's|$(CURDIR)/||g' -e 's|$(CURDIR)|.|g' -e 's|<system-err>.*</system-err>||' -e '/<property name="transcript /d' -e '/<property name="failure"/d' \
		"$(OPENCLAW_RESULTS)/junit.xml" > "$(OPENCLAW_REPORT)/junit.xml"
openclaw-install:
	$(GO) run ./targets/openclaw/cmd/openclaw-install $(OPENCLAW_VERSION)

## openclaw-conformance: every suite against the real OpenClaw (target openclaw:$(OPENCLAW_VERSION)) with its
## committed expected-failures baseline (a release without one is judged without); writes conformance-report.yaml, summary.md and junit.xml to
## $(OPENCLAW_REPORT)/ (full results in $(RESULTS)-openclaw; the committed junit.xml leaves out local paths, Ginkgo's
## per-spec logs and the transcripts, which report.html and report.json there keep). Fails on drift from the baseline.
openclaw-conformance: build openclaw-install
	./bin/codemode-conformance run --target "openclaw:$(OPENCLAW_VERSION)$(if $(OPENCLAW_EXECUTOR),+$(OPENCLAW_EXECUTOR))" $(if $(OPENCLAW_PROFILE),--profile $(OPENCLAW_PROFILE)) $(if $(OPENCLAW_LABEL_FILTER),--label-filter '$(OPENCLAW_LABEL_FILTER)') --results-dir "$(OPENCLAW_RESULTS)" \
		$(if $(wildcard $(OPENCLAW_REPORT)/expected-failures.yaml),--expected-failures "$(OPENCLAW_REPORT)/expected-failures.yaml"); rc=$$?; \
	$(OPENCLAW_COPY_REPORTS) && exit $$rc

## openclaw-rejudge: after `codemode-conformance baseline --from $(OPENCLAW_RESULTS) --update
## $(OPENCLAW_REPORT)/expected-failures.yaml`, judge the finished run in $(OPENCLAW_RESULTS) again against the updated
## baseline (codemode-conformance rejudge: no target runs, seconds instead of a rerun) and copy its reports to
## $(OPENCLAW_REPORT)/ as openclaw-conformance does. Exit status as the run's for the new verdict.
openclaw-rejudge: build
	./bin/codemode-conformance rejudge --from "$(OPENCLAW_RESULTS)" --expected-failures "$(OPENCLAW_REPORT)/expected-failures.yaml"; rc=$$?; \
	[ $$rc -le 1 ] && $(OPENCLAW_COPY_REPORTS) && exit $$rc

## openclaw-triage: rewrite the "Current verdicts" table of $(OPENCLAW_REPORT)/TRIAGE.md from the folder's report,
## junit.xml, baseline and handcheck/ (tools/triage; docs/openclaw.md); fails and names the rows that fail a check.
openclaw-triage:
	$(GO) run ./tools/triage --report "$(OPENCLAW_REPORT)"

## openclaw-matrix: the OpenClaw release matrix, requirement × release with each verdict's change from the previous
## release marked (tools/openclaw-matrix → $(OPENCLAW_MATRIX)/MATRIX.md, matrix.json). For each of RELEASES (default: every
## pinned version, targets/openclaw/<version>/), `openclaw-install --check` asks its generation's adapter whether it can
## drive it and writes reports/openclaw-<version>/drivability.json; a drivable release is judged by openclaw-conformance under
## its generation's profile (v1 or v2; openclaw-install --profile) into reports/openclaw-<version>/, one after the other
## (results in $(RESULTS)-openclaw-<version>); one that is not keeps only its drivability.json, whose reason names the
## functions its chunks do not export. Long: every suite per drivable release (25–40 min each on 2 cores).
##   make openclaw-matrix RELEASES="2026.5.28 2026.6.35 2026.7.1 2026.7.35 2026.8.2 2026.9.4 2026.9.6"
OPENCLAW_MATRIX ?= reports/openclaw-matrix
RELEASES ?= $(shell $(GO) run ./targets/openclaw/cmd/openclaw-install --list)
openclaw-matrix: build
	$(GO) build -o bin/openclaw-install ./targets/openclaw/cmd/openclaw-install
	@for v in $(RELEASES); do \
	  mkdir -p "reports/openclaw-$$v"; \
	  ./bin/openclaw-install --check "$$v" > "reports/openclaw-$$v/drivability.json.tmp"; rc=$$?; \
	  case $$rc in 0|3) mv "reports/openclaw-$$v/drivability.json.tmp" "reports/openclaw-$$v/drivability.json";; esac; \
	  case $$rc in \
	  0) $(MAKE) --no-print-directory openclaw-conformance OPENCLAW_VERSION="$$v" OPENCLAW_PROFILE="$$(./bin/openclaw-install --profile "$$v")" \
	       OPENCLAW_EXECUTOR= OPENCLAW_LABEL_FILTER= OPENCLAW_REPORT="reports/openclaw-$$v" OPENCLAW_RESULTS="$(RESULTS)-openclaw-$$v" \
	       || echo "openclaw-matrix: $$v: the run failed or drifted from its baseline (its report is written)";; \
	  3) echo "openclaw-matrix: $$v is not drivable: reports/openclaw-$$v/drivability.json says why";; \
	  *) echo "openclaw-matrix: $$v: openclaw-install --check failed (exit $$rc)"; exit $$rc;; \
	  esac; \
	done
	$(GO) run ./tools/openclaw-matrix --out "$(OPENCLAW_MATRIX)" $(RELEASES)

## diff-openclaw: the reference against OpenClaw 2026.7.35 and 2026.9.6 over the hostile corpus (codemode-conformance
## diff, docs/diff.md), with the committed triage; the ledger goes to $(RESULTS)-diff/ (copy diff.json to reports/diff/
## to commit it). Fails on a behavioural difference the triage does not cover.
diff-openclaw: build
	$(GO) run ./targets/openclaw/cmd/openclaw-install 2026.7.35
	$(GO) run ./targets/openclaw/cmd/openclaw-install 2026.9.6
	./bin/codemode-conformance diff --target builtin --target openclaw:2026.7.35 --target openclaw:2026.9.6 \
		--triage reports/diff/triage.yaml --results-dir "$(RESULTS)-diff"

## fuzz: run each fuzz target for FUZZTIME (their seed corpora already run under make test)
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./spec/config -run=^$$ -fuzz=FuzzResolve -fuzztime=$(FUZZTIME)
	$(GO) test ./reference/catalog -run=^$$ -fuzz=FuzzBuild -fuzztime=$(FUZZTIME)
	$(GO) test ./reference/moduleaccess -run=^$$ -fuzz=FuzzCheck -fuzztime=$(FUZZTIME)
	$(GO) test ./spec/protocol -run=^$$ -fuzz=FuzzCodec -fuzztime=$(FUZZTIME)
	$(GO) test ./reference/codemode -run=^$$ -fuzz=FuzzGuestPoll -fuzztime=$(FUZZTIME)
	$(GO) test ./reference/codemode -run=^$$ -fuzz=FuzzJSONDepth -fuzztime=$(FUZZTIME)
	$(GO) test ./spec/result -run=^$$ -fuzz=FuzzContentSize -fuzztime=$(FUZZTIME)
	$(GO) test ./spec/result -run=^$$ -fuzz=FuzzWellFormed -fuzztime=$(FUZZTIME)

## bench: engine and runtime benchmarks (compare runs with benchstat)
bench: engine
	$(GO) test ./reference/... -run=^$$ -bench=. -benchmem -count=6 | tee bench.txt

## bench-peer: the standard bench cells side by side over the driver protocol: builtin, the reference
## as a process over stdio, and BENCH_PEER (default openclaw:$(OPENCLAW_VERSION), installed on first use;
## BENCH_PEER= leaves it out). Writes
## reports/bench-peer/bench.txt (machine, date, table) and bench.json. memoryLimitBytes is raised to
## BENCH_MEMORY for every cell because the reference fails push-1e6 at the default 64 MiB; that finding is
## recorded by a second, default-memory run of push-1e6 (bench-default-memory.json, appended to bench.txt).
BENCH_PEER   ?= openclaw:$(OPENCLAW_VERSION)
BENCH_ROUNDS ?= 3
BENCH_MEMORY ?= 134217728
BENCH_DIR    ?= reports/bench-peer
BENCH_ARGS    = --target builtin --target "exec:./bin/codemode-reference serve --stdio" $(if $(BENCH_PEER),--target "$(BENCH_PEER)")
.PHONY: bench-peer
bench-peer: build $(if $(filter openclaw:%,$(BENCH_PEER)),openclaw-install)
	mkdir -p $(BENCH_DIR)
	./bin/codemode-conformance bench $(BENCH_ARGS) --rounds $(BENCH_ROUNDS) --memory-limit-bytes $(BENCH_MEMORY) \
		--out $(BENCH_DIR)/bench.json > $(BENCH_DIR)/bench.txt; status=$$?; cat $(BENCH_DIR)/bench.txt; exit $$status
	{ echo; echo "push-1e6 at the default memoryLimitBytes (64 MiB), 1 round: a FAIL here is a finding, not a bench error"; \
	  ./bin/codemode-conformance bench $(BENCH_ARGS) --cells push-1e6 --rounds 1 --warmup 0 \
		--out $(BENCH_DIR)/bench-default-memory.json || true; } | tee -a $(BENCH_DIR)/bench.txt

## bench-load: the reference's load and capacity (tools/bench LoadRun): trivial cells/s and p50/p99 at 1, 16, 64
## and 256 concurrent runs over stdio and over 8 TCP connections, RSS per suspended run, runtime.stats latency
## behind 256 busy cells. Measurements, not tests. Writes reports/bench-load/bench-load.txt (machine, load, tables)
## and bench-load.json.
BENCH_LOAD_DIR ?= reports/bench-load
.PHONY: bench-load
bench-load: build
	mkdir -p $(BENCH_LOAD_DIR)
	./bin/codemode-conformance bench-load --reference ./bin/codemode-reference --out $(BENCH_LOAD_DIR)/bench-load.json \
		> $(BENCH_LOAD_DIR)/bench-load.txt; status=$$?; cat $(BENCH_LOAD_DIR)/bench-load.txt; exit $$status

vet: engine
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

test: engine vet
	$(GO) test -count=1 -timeout 20m ./...

## flake-check: run every Go test changed since BASE (default main) FLAKE_N times (default 20), and each requirement
## named on a changed suites/ line as often against builtin; fails when an outcome varies (tools/flake-check)
BASE    ?= main
FLAKE_N ?= 20
.PHONY: flake-check
flake-check: engine
	$(GO) run ./tools/flake-check -base "$(BASE)" -n $(FLAKE_N)

clean:
	rm -rf bin $(SITE) $(RESULTS) $(RESULTS)-exec $(RESULTS)-openclaw $(RESULTS)-openclaw-* $(RESULTS)-container $(ENGINE_WASM) $(ENGINE_PKG)/node_modules

## dist: release artefacts in dist/ (gitignored): static harness binaries (CGO_ENABLED=0, the engine embedded, so
## builtin works) for DIST_PLATFORMS, each as codemode-conformance_<version>_<os>_<arch>.tar.gz, SHA256SUMS over the
## tarballs, and a CycloneDX SBOM of the harness's modules (cyclonedx-gomod, pinned here, from the module proxy).
## The version is `git describe`, stamped with -ldflags; `codemode-conformance version` prints it.
DIST           ?= dist
DIST_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST_VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0)
CYCLONEDX_GOMOD = github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
.PHONY: dist dist-binaries
dist: engine dist-binaries
	cd $(DIST) && sha256sum *.tar.gz > SHA256SUMS
	@# cyclonedx-gomod reads the main module's version with go-git, which cannot open a git worktree:
	@# it runs in a plain clone of HEAD (uncommitted changes are not part of a release anyway).
	tmp=$$(mktemp -d) && git clone -q . "$$tmp/src" && git -C "$$tmp/src" checkout -q "$$(git rev-parse HEAD)" && \
		(cd "$$tmp/src" && $(GO) run $(CYCLONEDX_GOMOD) app -json -licenses=false -main tools/codemode-conformance \
			-output "$(abspath $(DIST))/codemode-conformance.cdx.json" .); rc=$$?; rm -rf "$$tmp"; exit $$rc
dist-binaries: engine
	rm -rf $(DIST) && mkdir -p $(DIST)
	for p in $(DIST_PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; d=$(DIST)/codemode-conformance_$(DIST_VERSION)_$${os}_$${arch}; \
		mkdir -p $$d && CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false \
			-ldflags "-s -w -X main.version=$(DIST_VERSION)" -o $$d/codemode-conformance ./tools/codemode-conformance && \
		tar -C $(DIST) -czf $$d.tar.gz $$(basename $$d) && rm -rf $$d || exit 1; done

## image: the harness as a FROM scratch image, HARNESS_IMAGE (tools/codemode-conformance/image/Dockerfile: the static
## CLI with the reference embedded, entrypoint the CLI, results in the mounted /results; built locally, needs Docker).
## It judges builtin, a tcp: target on a user-defined network (e.g. the reference image of make container-image)
## or an exec: target mounted into it.
HARNESS_IMAGE ?= codemode-conformance:local
.PHONY: image
image: engine
	rm -rf bin/image && mkdir -p bin/image/tmp
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(DIST_VERSION)" -o bin/image/codemode-conformance ./tools/codemode-conformance
	docker build -q -f tools/codemode-conformance/image/Dockerfile -t "$(HARNESS_IMAGE)" bin/image

## actionlint: lint the reusable workflow, the action and init's workflow template with actionlint (pinned here, a Go
## module from the module proxy). actionlint reads an action's metadata only through a workflow that uses it by local
## path, so they are linted in a scratch project that has ACTION_YML (default action.yml) where conformance.yml checks
## the harness out to.
ACTIONLINT = github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
ACTION_YML ?= action.yml
.PHONY: actionlint
actionlint:
	tmp=$$(mktemp -d) && git init -q "$$tmp" && mkdir -p "$$tmp/.github/workflows" "$$tmp/.codemode-conformance" && \
	cp .github/workflows/*.yml "$$tmp/.github/workflows/" && cp "$(ACTION_YML)" "$$tmp/.codemode-conformance/action.yml" && \
	cp tools/codemode-conformance/initkit/common/conformance.yml "$$tmp/.github/workflows/init-template.yml" && \
	GOBIN="$$tmp/bin" $(GO) install $(ACTIONLINT) && (cd "$$tmp" && ./bin/actionlint -no-color); rc=$$?; rm -rf "$$tmp"; exit $$rc
