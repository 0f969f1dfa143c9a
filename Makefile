# Targets shared by people and CI. Tools the build needs are installed here,
# at pinned versions, into ./bin (ignored by git).

GO            ?= go
BIN           := $(CURDIR)/bin
STATICCHECK   := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2   # staticcheck 2026.2, built for go 1.26
DEMO_OUT      ?= demo-out
BENCHTIME     ?= 1x

.PHONY: all build test race lint tidy-check bench bench-e2e bench-memory faults interop ort demo demo-data weights fuzz clean

all: lint test build

build:
	$(GO) build -o $(BIN)/audit ./cmd/audit

## test: the whole suite (the README's test command; CI runs it). The onnx
## backend's tests need ONNX Runtime: `make ort` fetches it first.
test: ort
	ORT_LIB=$(ORT_LIB) $(GO) test -count=1 ./...

race: ort
	ORT_LIB=$(ORT_LIB) $(GO) test -race -count=1 ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(strip $(STATICCHECK_VERSION))

lint: $(STATICCHECK) tidy-check
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

## tidy-check: fail when go.mod/go.sum are not what `go mod tidy` makes
tidy-check:
	@tmp=$$(mktemp -d); cp go.mod go.sum $$tmp/; \
	$(GO) mod tidy; \
	if ! cmp -s go.mod $$tmp/go.mod || ! cmp -s go.sum $$tmp/go.sum; then \
	  diff -u $$tmp/go.mod go.mod; cp $$tmp/go.mod $$tmp/go.sum .; rm -rf $$tmp; \
	  echo "go.mod/go.sum drift: run 'go mod tidy' and commit"; exit 1; fi; \
	rm -rf $$tmp

## bench: every package's benchmarks, then end-to-end runs; figures go in
## BENCHMARKS.md by hand
bench: bench-e2e
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## bench-e2e: audit run on generated data (seed 202) at 10k and 100k claims, with
## wall time and peak memory from GNU time
E2E_DIR := .cache/bench
bench-e2e: build
	@for n in 10000 100000; do \
	  $(BIN)/audit gen --out $(E2E_DIR)/data-$$n --claims $$n --docs 10000 --seed 202 > /dev/null; \
	  rm -rf $(E2E_DIR)/out-$$n; \
	  echo "== $$n claims, 10000 documents, k=5"; \
	  /usr/bin/time -f "   wall %es, peak RSS %M KiB" $(BIN)/audit run --log-level warn \
	    --corpus $(E2E_DIR)/data-$$n/corpus.jsonl --spans $(E2E_DIR)/data-$$n/spans.jsonl \
	    --claims $(E2E_DIR)/data-$$n/claims.jsonl --gold $(E2E_DIR)/data-$$n/gold.jsonl --out $(E2E_DIR)/out-$$n; \
	done

## faults: the fault suite (docs/reliability.md): byte flips, truncations, a
## full disk (a 64 KiB tmpfs where mounting one is allowed), SIGKILL and
## SIGINT/SIGTERM at random points, concurrent runs, hostile inputs; each case
## runs the built binary under a timeout
faults: build
	AUDIT_BIN=$(BIN)/audit $(GO) test -tags faults -count=1 -timeout 15m -run '^TestFault' ./cmd/audit/

## bench-memory: peak RSS of audit run at 10k, 100k and 1M generated claims
## (the 1M run takes several minutes)
MEM_SIZES ?= 10000 100000 1000000
bench-memory: build
	@for n in $(MEM_SIZES); do \
	  $(BIN)/audit gen --out $(E2E_DIR)/data-$$n --claims $$n --docs 10000 --seed 202 > /dev/null; \
	  rm -rf $(E2E_DIR)/mem-$$n; \
	  /usr/bin/time -f "$$n claims: wall %es, peak RSS %M KiB" $(BIN)/audit run --log-level warn \
	    --corpus $(E2E_DIR)/data-$$n/corpus.jsonl --spans $(E2E_DIR)/data-$$n/spans.jsonl \
	    --claims $(E2E_DIR)/data-$$n/claims.jsonl --gold $(E2E_DIR)/data-$$n/gold.jsonl --out $(E2E_DIR)/mem-$$n > /dev/null; \
	done

## fuzz: a short run of every fuzz target (each target alone, as go test requires)
FUZZTIME ?= 10s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; done

## demo: the README's main command on the committed demo set
DEMO := benchdata/demo
demo: build
	$(BIN)/audit run --corpus $(DEMO)/corpus.jsonl --spans $(DEMO)/spans.jsonl \
	  --claims $(DEMO)/claims.jsonl --gold $(DEMO)/gold.jsonl --out $(DEMO_OUT)

## ort: ONNX Runtime's shared library for the onnx verifier, from the npm package
## onnxruntime-node (npm pack + tar; its install script, which downloads from
## elsewhere, never runs), cached in .cache/onnxruntime
ORT_VERSION := 1.30.0
ORT_DIR     := $(CURDIR)/.cache/onnxruntime
ORT_LIB     ?= $(ORT_DIR)/libonnxruntime.so.1
ort: $(ORT_DIR)/libonnxruntime.so.1
$(ORT_DIR)/libonnxruntime.so.1:
	rm -rf $(ORT_DIR)/pack && mkdir -p $(ORT_DIR)/pack
	cd $(ORT_DIR)/pack && npm pack --silent onnxruntime-node@$(ORT_VERSION) > /dev/null
	tar -xzf $(ORT_DIR)/pack/onnxruntime-node-$(ORT_VERSION).tgz -C $(ORT_DIR)/pack package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	mv $(ORT_DIR)/pack/package/bin/napi-v6/linux/x64/libonnxruntime.so.1 $@.tmp && mv $@.tmp $@
	rm -rf $(ORT_DIR)/pack

## interop: read a demo run's Parquet with DuckDB (@duckdb/node-api from npm, which
## ships its own native binary), an independent reader, and check counts and sums
interop: demo
	cd interop && npm install --no-audit --no-fund --loglevel=error
	node interop/check.mjs $(DEMO_OUT)

## weights: rebuild the lexical verifier's embedded weights, byte for byte, from a
## generated training split (seed 101; the demo uses 2026 and benchmarks 202)
WEIGHTS_DATA := .cache/weights-data
weights:
	$(GO) run ./cmd/audit gen --out $(WEIGHTS_DATA) --claims 6000 --docs 2000 --seed 101
	$(GO) run ./cmd/audit train --corpus $(WEIGHTS_DATA)/corpus.jsonl --spans $(WEIGHTS_DATA)/spans.jsonl \
	  --claims $(WEIGHTS_DATA)/claims.jsonl --gold $(WEIGHTS_DATA)/gold.jsonl --out adjudicate/lexical/weights.json

## demo-data: regenerate the committed demo set (seed 2026; weights use other seeds)
demo-data:
	$(GO) run ./cmd/audit gen --out $(DEMO) --claims 600 --docs 300 --seed 2026

clean:
	rm -rf $(BIN) $(DEMO_OUT)
