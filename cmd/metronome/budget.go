package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/sandbox"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// budgets are the --budget, --drain-budget and --memory-limit of run and
// test: scripting.Options' Budget, DrainBudget and MemoryLimit.
type budgets struct {
	Budget      time.Duration
	DrainBudget time.Duration
	MemoryLimit int64
}

// The defaults. A main chunk, callback or test runs far below them; a
// runaway stops within about a second (five under test, whose bodies drive
// whole scenarios), and 1.2 million interval fires in one advance take
// about a second of the ten-second drain budget.
var (
	runBudgets  = budgets{Budget: time.Second, DrainBudget: 10 * time.Second, MemoryLimit: 1 << 30}
	testBudgets = budgets{Budget: 5 * time.Second, DrainBudget: 10 * time.Second, MemoryLimit: 1 << 30}
)

// bind registers the flags, starting from b's values.
func (b *budgets) bind(fs *flag.FlagSet) {
	fs.Var((*budgetFlag)(&b.Budget), "budget", "each main chunk, callback and test body may run for `D` of wall time: 200ms, 1s (0: none)")
	fs.Var((*budgetFlag)(&b.DrainBudget), "drain-budget", "one advance, update or step may run callbacks for `D` of wall time (0: none)")
	fs.Var((*sizeFlag)(&b.MemoryLimit), "memory-limit", "the heap may grow by `N` bytes while scripts run: 256MiB, 1GiB (0: no limit)")
}

// options fills in the scripting options the budgets are; ctx stops the
// scripts when it is done (Ctrl-C, SIGTERM).
func (b budgets) options(ctx context.Context, o *scripting.Options) {
	o.Budget, o.DrainBudget, o.MemoryLimit, o.Context = temporal.Duration(b.Budget), temporal.Duration(b.DrainBudget), b.MemoryLimit, ctx
}

// budgetFlag is a duration >= 0 in Go's form: 200ms, 1.5s, 2m.
type budgetFlag time.Duration

func (f *budgetFlag) String() string {
	if f == nil {
		return ""
	}
	return time.Duration(*f).String()
}

func (f *budgetFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 200ms, 1.5s or 2m (0 for none)")
	}
	if d < 0 {
		return fmt.Errorf("want a duration >= 0, got %s", s)
	}
	*f = budgetFlag(d)
	return nil
}

// sizeFlag is a byte count: 1073741824, 512KiB, 256MiB, 1GiB, 100MB, 2GB.
type sizeFlag int64

var sizeUnits = []struct {
	suffix string
	n      int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}

func (f *sizeFlag) String() string {
	if f == nil {
		return ""
	}
	n := int64(*f)
	for _, u := range sizeUnits[:4] {
		if n >= u.n && n%u.n == 0 && (n/u.n < 1024 || u.suffix == "TiB") {
			return strconv.FormatInt(n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (f *sizeFlag) Set(s string) error {
	num, unit := s, int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, unit = strings.TrimSuffix(s, u.suffix), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return errors.New("want a whole number of bytes >= 0, with an optional unit: 256MiB, 1GiB, 500MB (0: no limit)")
	}
	if n > math.MaxInt64/unit {
		return fmt.Errorf("%s is more bytes than an int64 holds", s)
	}
	*f = sizeFlag(n * unit)
	return nil
}

// budgetedRunner is the host's runner whose steps run under the state's
// drain budget. In virtual time the steps within one frame of the host's
// time, and the runner's work between them, share one budget, as one
// update of a frame would: a run of short steps that gets nowhere (a job
// that re-arms itself 1 ns later) stops with the drain budget's error. In
// real time, where the run sleeps between steps, each step has its own.
type budgetedRunner struct {
	*hostservices.Runner
	s    *session
	span *sandbox.DrainSpan
	from temporal.Duration // the host's elapsed time when span restarted
}

func newBudgetedRunner(s *session) *budgetedRunner {
	return &budgetedRunner{Runner: s.runner, s: s, span: sandbox.NewDrainSpan(s.L, "step"), from: s.elapsed()}
}

func (r *budgetedRunner) Step(elapsed temporal.Duration) error {
	if now := r.s.elapsed(); r.s.o.Realtime || now-r.from >= r.s.o.Frame {
		r.span.Restart()
		r.from = now
	}
	return r.span.Run(func() error { return r.Runner.Step(elapsed) })
}
