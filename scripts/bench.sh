#!/usr/bin/env bash
# bench.sh prints the benchmark report (`make bench`): Metronome beside its
# peers, with the ratios peer / ours from one run, as markdown on stdout.
# The raw `go test -bench` lines go to stderr as they come, for progress.
#
# Environment:
#   COUNT      runs of each benchmark (default 1; medians are reported, with
#              a 95% confidence interval from 6 runs on)
#   STAT       median (default) or min: how several runs reduce to one figure
#   BENCHTIME  -benchtime of the micro-benchmarks (default 500ms)
#   RAW        also keep the raw benchmark output in this file
#   SVG        where to draw ns/op against pending timers (default
#              docs/bench-scaling.svg)
#   DOC        the markdown file whose figures block (between the lines
#              <!-- figures:begin --> and <!-- figures:end -->) the report
#              replaces (default docs/benchmarks.md; empty: none)
#   GO         the go command (default go)
#
# The whole report takes about 3 minutes on 2 cores with the defaults (about
# 8 with COUNT=3); docs/benchmarks.md says what each figure measures. It
# needs no network but the npm registry, for the Node peer (internal/bench/node), and
# the Go module proxy once, for golang.org/x/perf (internal/bench/cmd/benchreport).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
COUNT=${COUNT:-1}
BENCHTIME=${BENCHTIME:-500ms}
raw=$(mktemp)
svg=${SVG:-docs/bench-scaling.svg}
[[ $svg == /* ]] || svg=$PWD/$svg # benchreport runs from its own directory
trap 'rm -f "$raw"' EXIT

bench() { # bench PACKAGE REGEXP BENCHTIME
	"$GO" test -run '^$' -bench "$2" -benchtime "$3" -count "$COUNT" -timeout 30m "$1" | tee -a "$raw" >&2
}

# Scheduler micro-benchmarks: metronome, container-heap, afterfunc.
bench ./internal/bench '^Benchmark(ScheduleCancel|RandomCancel|ScheduleFire)$' "$BENCHTIME"
bench ./internal/bench '^BenchmarkDrain1M$' 3x
bench ./internal/bench '^BenchmarkMemoryPerPendingOnce$' 1x
# The deadline queue alone.
bench ./runtime/internal/timerq '^Benchmark(Heap|ContainerHeap)$' "$BENCHTIME"
# Keyed timers: 20,000 keyed timers through the shared scheduler, and
# their resources beside a ticker and a goroutine per timer.
bench ./runtime/keyed '^BenchmarkKeyed(Shared|Resources)$' 1x
# The timer wheel beside the heap and time.AfterFunc, and the 24-hour virtual
# run on both queues (about 61 million fires each); the service's Schedule+Stop.
bench ./runtime/internal/timerq '^BenchmarkInsertCancel$' "$BENCHTIME"
bench ./runtime/internal/timerq '^Benchmark(MemoryPerPending|VirtualDay)$' 1x
# The same day on the typed scheduler, on the heap and on its timer wheel:
# 58,105,332 fires each, identical traces.
bench ./runtime/sched '^BenchmarkVirtualDay$' 1x
bench ./runtime/driver '^BenchmarkServiceScheduleStop$' "$BENCHTIME"
# The intervals scene: one whole scene per peer (2,560,973 fires each).
bench ./internal/bench '^BenchmarkIntervals$' 1x
# The intervals scene on @sinonjs/fake-timers under Node, when node and npm are here.
if command -v node >/dev/null && command -v npm >/dev/null &&
	npm ci --prefix internal/bench/node --no-audit --no-fund --silent >&2; then
	for _ in $(seq "$COUNT"); do
		node internal/bench/node/w1_fake_timers.js 10000 1 |
			sed -E 's/.*"fires":([0-9]+),"nsPerFire":([0-9.]+).*/BenchmarkIntervals\/fake-timers-node-2 1 0 ns\/op \2 ns\/fire/' |
			tee -a "$raw" >&2
	done
else
	echo "bench.sh: no node/npm here: fake-timers-node is left out" >&2
fi
# time.AfterFunc where it must fire: in a testing/synctest bubble.
"$GO" run ./internal/bench/cmd/synctestpeers -benchtime "$BENCHTIME" -count "$COUNT" | tee -a "$raw" >&2

if [[ -n "${RAW:-}" ]]; then
	cp "$raw" "$RAW"
fi
# benchreport is a module of its own (x/perf stays out of ours): run it from there.
# From the same figures it redraws docs/bench-scaling.svg (SVG= names another file).
report=$(mktemp)
trap 'rm -f "$raw" "$report"' EXIT
"$GO" run -C internal/bench/cmd/benchreport . -stat "${STAT:-median}" -svg "$svg" "$raw" >"$report"
cat "$report"

# The report, its headings one level down and its title left out, becomes
# the figures block of DOC: the figures there are always a whole run's.
doc=${DOC-docs/benchmarks.md}
if [[ -n "$doc" ]]; then
	if ! grep -q '^<!-- figures:begin -->$' "$doc" || ! grep -q '^<!-- figures:end -->$' "$doc"; then
		echo "bench.sh: $doc has no figures block (<!-- figures:begin --> ... <!-- figures:end -->): left as it was" >&2
	else
		block=$(mktemp)
		{
			echo "Written by \`make bench\` at commit \`$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\`; do not edit by hand."
			sed -e '1{/^# /d}' -e 's/^#/##/' "$report"
		} >"$block"
		awk -v block="$block" '
			/^<!-- figures:begin -->$/ { print; while ((getline line < block) > 0) print line; skip = 1; next }
			/^<!-- figures:end -->$/ { skip = 0 }
			!skip { print }' "$doc" >"$doc.new" && mv "$doc.new" "$doc"
		rm -f "$block"
		echo "bench.sh: wrote the figures into $doc" >&2
	fi
fi
