# Targets shared by people and CI. Tools the build needs are installed here,
# at pinned versions, into ./bin (ignored by git).

GO            ?= go
BIN           := $(CURDIR)/bin
STATICCHECK   := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2   # staticcheck 2026.2, built for go 1.26
DEMO_OUT      ?= demo-out
BENCHTIME     ?= 1x

.PHONY: all build test race lint tidy-check bench demo demo-data weights fuzz clean

all: lint test build

build:
	$(GO) build -o $(BIN)/audit ./cmd/audit

## test: the whole suite (the README's test command; CI runs it)
test:
	$(GO) test -count=1 ./...

race:
	$(GO) test -race -count=1 ./...

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

## bench: every package's benchmarks; figures go in BENCHMARKS.md by hand
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

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
	$(BIN)/audit validate --corpus $(DEMO)/corpus.jsonl --spans $(DEMO)/spans.jsonl --claims $(DEMO)/claims.jsonl --gold $(DEMO)/gold.jsonl
	$(BIN)/audit index --corpus $(DEMO)/corpus.jsonl --spans $(DEMO)/spans.jsonl --index $(DEMO_OUT)/index
	$(BIN)/audit search --index $(DEMO_OUT)/index --k 3 "$$(head -n 1 $(DEMO)/claims.jsonl | sed 's/.*"text":"\([^"]*\)".*/\1/')"

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
