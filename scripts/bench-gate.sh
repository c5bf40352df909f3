#!/usr/bin/env bash
# bench-gate.sh (`make bench-gate`): the headline scenes through the CLI,
# each beside its peer, interleaved in one run, the best of ROUNDS rounds
# of each; prints every ratio beside its goal and exits 1 when one misses.
#
#   intervals          Lua callbacks, default flags (budgets on), against
#                      a Go container/heap scheduler with Go callbacks
#   budgets            the intervals scene in process (BenchmarkIntervalsBudget)
#                      with budgets on against a state with none: no governor
#                      and no context, so gopher-lua checks nothing between
#                      two instructions (the CLI always gives its state a
#                      context, for Ctrl-C, so its flags cannot turn that off)
#   keyed, calling     keyed callbacks that call a function (resumed as
#                      coroutines) against the same callbacks on
#                      schedule-every (plain calls)
#   keyed, tick        keyed callbacks that read their tick, against intervals
#   event loop         intervals on the event loop against @sinonjs/fake-timers
#                      (skipped without node or internal/bench/node's packages)
#
# A CLI figure is the run's wall time less that of the same script with
# N = 0 (start-up and compile), per fire. The Go heap peer is
# ../shared/bench/gopeer when it stands beside the project.
#
# Each round also runs internal/bench/cmd/floor: the runtime's Go side with
# Go callbacks, bare gopher-lua calls of the scenes' callbacks, and the
# scenes' own statements (option tables, closures) in bare gopher-lua per
# fire. Their sum is the least a Lua scene can cost; a row against an
# outside peer prints the best ratio that floor allows, the keyed row the
# ratio of the two call floors.
#
# Usage: scripts/bench-gate.sh [ROUNDS]   (default 3; about 15 s a round)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$GO" build -o "$tmp/metronome" ./cmd/metronome
"$GO" build -o "$tmp/floor" ./internal/bench/cmd/floor
"$GO" test -c -o "$tmp/bench.test" ./internal/bench
peer=../shared/bench/gopeer
if [ -d "$peer" ]; then
	(cd "$peer" && GOFLAGS=-mod=mod "$GO" build -o "$tmp/gopeer" .) >"$tmp/log" 2>&1 || { echo "bench-gate: the Go heap peer did not build: $(tail -n 1 "$tmp/log")"; exit 2; }
fi
node_ok=
if command -v node >/dev/null && [ -d internal/bench/node/node_modules/@sinonjs/fake-timers ]; then node_ok=1; fi

n=10000 h=1
fires=2560973
big=(--budget 60s --drain-budget 60s)

# cli NAME SCRIPT FLAGS...: ns per fire of SCRIPT through the CLI.
cli() {
	local script=$1; shift
	local t0 t1 t2 out
	t0=$(date +%s%N)
	"$tmp/metronome" run "$@" "$script" 0 "$h" >/dev/null
	t1=$(date +%s%N)
	out=$("$tmp/metronome" run "$@" "$script" "$n" "$h")
	t2=$(date +%s%N)
	case "$out" in *"\"fires\":$fires"*) ;; *) echo "bench-gate: $script: $out" >&2; exit 1 ;; esac
	echo $(( ((t2 - t1) - (t1 - t0)) / fires ))
}

declare -A best
keep() { # keep NAME VALUE: the smallest of the rounds
	if [ -z "${best[$1]:-}" ] || [ "$2" -lt "${best[$1]}" ]; then best[$1]=$2; fi
}
for _ in $(seq "$rounds"); do
	fl=$("$tmp/floor" -n "$n" -h "$h")
	for k in go_every go_keyed go_loop lua_leaf lua_calling lua_resumed lua_setup lua_setup_loop; do
		keep "$k" "$(echo "$fl" | sed -n "s/.*\"$k\":\([0-9]*\).*/\1/p")"
	done
	if [ -x "$tmp/gopeer" ]; then
		keep heap "$("$tmp/gopeer" -n "$n" -h "$h" -peers heap | sed -n 's/.*"ns_per_fire":\([0-9]*\).*/\1/p')"
	fi
	keep w1 "$(cli internal/bench/w1.lua "${big[@]}")"
	bb=$("$tmp/bench.test" -test.run '^$' -test.bench 'BenchmarkIntervalsBudget/^metronome-lua$/' -test.benchtime 1x)
	for mode in off on std-ctx; do
		keep "budget_$mode" "$(echo "$bb" | sed -n "s|^BenchmarkIntervalsBudget/metronome-lua/budget-$mode[^ ]* .* \([0-9]*\)\.[0-9]* ns/fire.*|\1|p")"
	done
	keep call "$(cli internal/bench/w1_call.lua "${big[@]}")"
	keep keyedcall "$(cli internal/bench/w1_keyed_call.lua "${big[@]}")"
	keep keyedtick "$(cli internal/bench/w1_keyed_tick.lua "${big[@]}")"
	keep loop "$(cli internal/bench/w1_eventloop.lua "${big[@]}")"
	if [ -n "$node_ok" ]; then
		keep sinon "$(node internal/bench/node/w1_fake_timers.js "$n" "$h" | sed -n 's/.*"nsPerFire":\([0-9]*\).*/\1/p')"
	fi
done

miss=0
# ratio A B: A / B with two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# row NAME OURS PEER GOAL CMP [NOTE]: ratio OURS/PEER against GOAL (CMP le: at most)
row() {
	local r
	r=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.2f", a / b }')
	if awk -v r="$r" -v g="$4" -v c="$5" 'BEGIN { exit !((c == "le") ? r <= g : r >= g) }'; then
		printf '%-16s %5s ns  %5s ns  ratio %s  goal %s %s  met%s\n' "$1" "$2" "$3" "$r" "$([ "$5" = le ] && echo '<=' || echo '>=')" "$4" "${6:+  ($6)}"
	else
		printf '%-16s %5s ns  %5s ns  ratio %s  goal %s %s  MISSED%s\n' "$1" "$2" "$3" "$r" "$([ "$5" = le ] && echo '<=' || echo '>=')" "$4" "${6:+  ($6)}"
		miss=1
	fi
}
echo "best of $rounds interleaved rounds, ns per fire (ours, then the peer or the base)"
echo "floor: Go side with Go callbacks, every $((best[go_every])) keyed $((best[go_keyed])) event loop $((best[go_loop])) ns; bare gopher-lua call $((best[lua_leaf])), calling $((best[lua_calling])), resumed $((best[lua_resumed])) ns; the scene's own statements $((best[lua_setup])) ns, on the event loop $((best[lua_setup_loop])) ns"
w1floor=$((best[go_every] + best[lua_leaf] + best[lua_setup]))
if [ -n "${best[heap]:-}" ]; then row "intervals / Go heap" "${best[w1]}" "${best[heap]}" 0.75 le "floor $w1floor ns: at best $(ratio "$w1floor" "${best[heap]}"); ours $(ratio "${best[w1]}" "$w1floor")x the floor"; else echo "intervals / Go heap  skipped: $peer not found"; fi
row "budgets on/off" "${best[budget_on]}" "${best[budget_off]}" 1.05 le "a context alone, no frames: ${best[budget_std-ctx]} ns; ours $(ratio "${best[budget_on]}" "${best[budget_std-ctx]}")x that"
row "keyed calling" "${best[keyedcall]}" "${best[call]}" 1.30 le "floors $((best[go_keyed] + best[lua_resumed])) and $((best[go_every] + best[lua_calling])) ns: $(ratio $((best[go_keyed] + best[lua_resumed])) $((best[go_every] + best[lua_calling])))"
row "keyed tick" "${best[keyedtick]}" "${best[w1]}" 1.60 le
if [ -n "${best[sinon]:-}" ]; then
	r=$(awk -v a="${best[sinon]}" -v b="${best[loop]}" 'BEGIN { printf "%.2f", a / b }')
	if awk -v r="$r" 'BEGIN { exit !(r >= 4) }'; then v=met; else v=MISSED; miss=1; fi
	lfloor=$((best[go_loop] + best[lua_leaf] + best[lua_setup_loop]))
	printf '%-16s %5s ns  %5s ns  sinon / ours %s  goal >= 4  %s  (floor %s ns: at best %s; ours %sx the floor)\n' "event loop" "${best[loop]}" "${best[sinon]}" "$r" "$v" "$lfloor" "$(ratio "${best[sinon]}" "$lfloor")" "$(ratio "${best[loop]}" "$lfloor")"
else
	echo "event loop       ${best[loop]} ns; sinon skipped (needs node and: cd internal/bench/node && npm ci)"
fi
exit "$miss"
