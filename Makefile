# Metronome: the commands a newcomer needs.
GO ?= go
PKGS := ./...

.PHONY: run test vet fmt-check bench build clean

## run: the quickstart scene on the virtual clock
run:
	$(GO) run ./cmd/metronome run examples/quickstart.lua

## test: vet, formatting, and every Go and Lua test under the race detector
test: vet fmt-check
	$(GO) test -race -count=1 $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## bench: the benchmark report, ours beside the peers, as ratios from one run
bench:
	./scripts/bench.sh

build:
	$(GO) build -o bin/metronome ./cmd/metronome

clean:
	rm -rf bin
