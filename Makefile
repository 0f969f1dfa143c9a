# Targets shared by people and CI. Tools the build needs are installed here,
# at pinned versions, into ./bin (ignored by git).

GO            ?= go
BIN           := $(CURDIR)/bin
STATICCHECK   := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2   # staticcheck 2026.2, built for go 1.26
DEMO_OUT      ?= demo-out
BENCHTIME     ?= 1x

.PHONY: all build test race lint tidy-check bench bench-e2e interop ort demo demo-data weights weights-check eval-real fuzz clean

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

## Real labelled sets (SufficientFacts, Fool Me Twice, Citation-Integrity, Check-COVID) in
## the harness formats, one folder each under DATA. They are not part of the project (a
## fresh clone has none): give their folder as DATA=...; without it the targets say so.
DATA          ?=
REAL_SETS     := sufficient_facts fm2 citint_train checkcovid_train
LEXICAL       := .cache/lexical
GENERATED_SET := $(LEXICAL)/generated
TRAIN_SETS     = --set $(GENERATED_SET) $(foreach s,$(REAL_SETS),--set $(DATA)/$(s))
HAVE_DATA      = ( test -n "$(DATA)" && $(foreach s,$(REAL_SETS),test -f $(DATA)/$(s)/claims.jsonl &&) true )

# the generated training set (seed 101; the demo uses 2026 and benchmarks 202)
$(GENERATED_SET)/claims.jsonl: build
	$(BIN)/audit gen --out $(GENERATED_SET) --claims 6000 --docs 2000 --seed 101 > /dev/null

## eval-real: the lexical verifier's leave-one-set-out table (train on every set but one,
## the generated set included, test on the one left out); skipped without DATA
eval-real: build
	@if ! $(HAVE_DATA); then echo "eval-real: skipped: set DATA to a folder holding $(REAL_SETS) (harness formats)$(if $(DATA), - not found under $(DATA))"; exit 0; fi; \
	$(MAKE) --no-print-directory $(GENERATED_SET)/claims.jsonl && \
	$(BIN)/audit train --leave-one-out --index $(LEXICAL)/index $(TRAIN_SETS)

## weights: rebuild the lexical verifier's embedded weights, byte for byte, from the
## generated set and the four real sets (fails without DATA: the weights need them)
weights: build
	@if ! $(HAVE_DATA); then echo "weights: the embedded weights are trained on the real sets too: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	$(MAKE) --no-print-directory $(GENERATED_SET)/claims.jsonl
	$(BIN)/audit train $(TRAIN_SETS) --out adjudicate/lexical/weights.json

## weights-check: retrain from scratch (fresh indexes) and compare with the committed
## weights byte for byte; skipped without DATA
weights-check: build
	@if ! $(HAVE_DATA); then echo "weights-check: skipped: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 0; fi; \
	rm -rf $(GENERATED_SET) && $(MAKE) --no-print-directory $(GENERATED_SET)/claims.jsonl && \
	$(BIN)/audit train $(TRAIN_SETS) --out $(LEXICAL)/weights.json && \
	cmp $(LEXICAL)/weights.json adjudicate/lexical/weights.json && echo "weights-check: identical to the committed weights"

## demo-data: regenerate the committed demo set (seed 2026; weights use other seeds)
demo-data:
	$(GO) run ./cmd/audit gen --out $(DEMO) --claims 600 --docs 300 --seed 2026

clean:
	rm -rf $(BIN) $(DEMO_OUT)
