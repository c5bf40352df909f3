# Metronome: the commands a newcomer needs.
GO ?= go
PKGS := ./...

.PHONY: run test vet fmt-check tidy-check staticcheck lint-lua bench bench-gate bench-lateness build clean fuzz soak cluster-figures

## run: the quickstart scene on the virtual clock
run:
	$(GO) run ./cmd/metronome run examples/quickstart.lua

## test: vet, formatting, tidiness, staticcheck, and every Go and Lua test under the race detector
test: vet fmt-check tidy-check staticcheck lint-lua
	$(GO) test -race -count=1 $(PKGS)
	cd internal/bench/cmd/benchreport && $(GO) test -count=1 ./... && $(GO) mod tidy -diff
	cd cluster/etcdtest && $(GO) vet ./... && $(GO) test -race -count=1 ./... && $(GO) mod tidy -diff

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## tidy-check: go.mod and go.sum say exactly what the code imports
tidy-check:
	@$(GO) mod tidy -diff || { echo "go mod tidy would change go.mod or go.sum (run it and commit)"; exit 1; }

## lint-lua: luacheck (Debian's lua-check) over the Lua we ship, with
## .luacheckrc; skipped with a note where it is not installed, unless
## LUACHECK_REQUIRED=1 (CI installs it and sets that)
lint-lua:
	@if command -v luacheck >/dev/null; then \
		luacheck --no-color -q examples tests internal/bench; \
	elif [ "$(LUACHECK_REQUIRED)" = 1 ]; then \
		echo "luacheck not found (apt-get install lua-check)"; exit 1; \
	else \
		echo "luacheck not found: skipping the Lua lint (apt-get install lua-check)"; \
	fi

## staticcheck: pinned in go.mod's tool directive (go tool staticcheck)
staticcheck:
	$(GO) tool staticcheck $(PKGS)

## fuzz: each fuzz target for FUZZTIME, one after another (not part of test,
## which runs the corpus in testdata/fuzz); a failure stops the run and
## leaves the input in the package's testdata/fuzz
FUZZTIME ?= 20s
FUZZ_TARGETS := \
	./runtime/internal/timerq:FuzzHeap \
	./runtime/internal/timerq:FuzzWheel \
	./temporal:FuzzParseDuration \
	./temporal:FuzzParseInstant \
	./temporal:FuzzRecurrenceSet \
	./hostservices:FuzzUpdateDelta \
	./lua/scripting:FuzzOptionTables \
	./lua/scripting:FuzzScript \
	./runtime/sched:FuzzDecodeSnapshot
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

## soak: the stress and cycle tests at full size (100,000 create-schedule-drop
## cycles, in one state and one state each; about a minute), and the 24-hour
## virtual run on the heap- and the wheel-backed scheduler (about 30 s)
soak:
	METRONOME_SOAK=1 $(GO) test -count=1 -run 'Stress|Cycles' ./hostservices ./lua/scripting
	METRONOME_SOAK=1 $(GO) test -count=1 -run '^TestVirtualDaySameTrace$$' -v ./runtime/sched

## bench: the benchmark report, ours beside the peers, as ratios from one run
bench:
	./scripts/bench.sh

## bench-gate: the headline scenes through the CLI beside their peers,
## interleaved, each ratio beside its goal (about a minute; exits 1 on a miss)
bench-gate:
	./scripts/bench-gate.sh $(or $(ROUNDS),3)

## bench-lateness: the timer service's real-time lateness beside time.AfterFunc
## (100,000 callbacks over 10 s of wall time, once per peer: about 40 s)
bench-lateness:
	METRONOME_LATENESS=1 $(GO) test -run '^$$' -bench '^BenchmarkLateness$$' -benchtime 1x -timeout 10m ./runtime/driver

## cluster-figures: etcd requests/s with 1,000 owners in one process, and
## take-over times over 20 SIGKILLed owners (about a minute, in-process etcd)
cluster-figures:
	cd cluster/etcdtest && METRONOME_FIGURES=1 $(GO) test -count=1 -run Figures -v .

build:
	$(GO) build -o bin/metronome ./cmd/metronome

clean:
	rm -rf bin
