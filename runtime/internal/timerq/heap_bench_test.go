package timerq

import (
	"container/heap"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
)

// BenchmarkHeap and BenchmarkContainerHeap run the same workloads with the
// same sub-benchmark names, so one run gives the ratios:
//
//	schedule-cancel/N  push one value into a queue holding N, then Remove it
//	cancel-readd/N     Remove a random queued value, push it back with a new key
//	fire/N             push a value due later than now, Pop the earliest
//	drain/1M           Pop all of 1M queued values (ns/op is the whole drain;
//	                   Heap's few allocs/op are its slot array halving as it empties)
//	intervals/10k      re-key the earliest of 10k values by its own period,
//	                   1 to 60 s with a random phase: a scheduler firing
//	                   intervals in a long drain, as a virtual day of
//	                   intervals does
//
// BenchmarkHeap adds drain-sorted/1M: sortDue of all 1M values, then Pop
// them all (ns/op and ns/pop include the sort).
//
// Heap's values are unsafe.Pointer, as in the scheduler, so a slot is 32
// bytes. Keys and picks come from tables filled by a fixed-seed PCG, so
// every run does the same work and the generator is not on the timed path.
// The tables are at least as long as the queue, so picks reach every value.
// Setup garbage is collected before the timer starts: a GC cycle running
// during the loop would turn write barriers on and share the caches.

var benchSizes = []struct {
	name string
	n    int
}{
	{"1k", 1_000},
	{"100k", 100_000},
	{"1M", 1_000_000},
}

const (
	drainSize   = 1_000_000
	minTable    = 1 << 16
	benchWindow = int64(1) << 40 // deadlines spread over ~18 minutes of ns
)

// benchData holds the random keys and picks of one queue size; index them
// with i&mask.
type benchData struct {
	keys  []int64 // uniform in [0, benchWindow)
	picks []int32 // uniform in [0, n)
	mask  int
}

func newBenchData(n int) benchData {
	size := max(minTable, 1<<bits.Len(uint(n-1)))
	r := rand.New(rand.NewPCG(1, uint64(n)))
	d := benchData{keys: make([]int64, size), picks: make([]int32, size), mask: size - 1}
	for i := range d.keys {
		d.keys[i] = r.Int64N(benchWindow)
		d.picks[i] = int32(r.IntN(n))
	}
	return d
}

// startTimer collects setup garbage, then resets the benchmark timer.
func startTimer(b *testing.B) {
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
}

// fillHeap returns a heap holding n values with random keys, and their IDs.
// Each value points at its own word of one array, as a scheduler's point at
// their jobs.
func fillHeap(n int, d benchData) (*Heap[unsafe.Pointer], []ID) {
	vals := make([]int64, n)
	ids := make([]ID, n)
	h := &Heap[unsafe.Pointer]{}
	for i := range ids {
		ids[i] = h.Push(d.keys[i], uint64(i), unsafe.Pointer(&vals[i]))
	}
	return h, ids
}

func BenchmarkHeap(b *testing.B) {
	for _, size := range benchSizes {
		d := newBenchData(size.n)
		b.Run("schedule-cancel/"+size.name, func(b *testing.B) {
			h, _ := fillHeap(size.n, d)
			x := unsafe.Pointer(new(int64))
			seq := uint64(size.n)
			startTimer(b)
			for i := 0; i < b.N; i++ {
				id := h.Push(d.keys[i&d.mask], seq, x)
				h.Remove(id)
				seq++
			}
		})
		b.Run("cancel-readd/"+size.name, func(b *testing.B) {
			h, ids := fillHeap(size.n, d)
			seq := uint64(size.n)
			startTimer(b)
			for i := 0; i < b.N; i++ {
				j := d.picks[i&d.mask]
				x, _ := h.Remove(ids[j])
				ids[j] = h.Push(d.keys[(i+7)&d.mask], seq, x)
				seq++
			}
		})
		b.Run("fire/"+size.name, func(b *testing.B) {
			h, _ := fillHeap(size.n, d)
			x, now := unsafe.Pointer(new(int64)), int64(0)
			seq := uint64(size.n)
			startTimer(b)
			for i := 0; i < b.N; i++ {
				h.Push(now+d.keys[i&d.mask], seq, x)
				_, now, _, x, _ = h.Pop()
				seq++
			}
		})
	}
	b.Run("intervals/10k", func(b *testing.B) {
		periods, phases := intervalData(intervalsSize)
		h := &Heap[unsafe.Pointer]{}
		for i := range periods {
			h.Push(phases[i], uint64(i), unsafe.Pointer(&periods[i]))
		}
		startTimer(b)
		for i := 0; i < b.N; i++ {
			id, when, seq, p, _ := h.Peek()
			h.Update(id, when+*(*int64)(p), seq)
		}
	})
	d := newBenchData(drainSize) // outside the sub-benchmarks: its allocations are not the drain's
	for _, sorted := range []bool{false, true} {
		name := "drain/1M"
		if sorted {
			name = "drain-sorted/1M"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h, _ := fillHeap(drainSize, d)
				runtime.GC()
				b.StartTimer()
				if sorted {
					h.sortDue(math.MaxInt64)
				}
				for h.Len() > 0 {
					h.Pop()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*drainSize), "ns/pop")
		})
	}
}

const intervalsSize = 10_000

// intervalData returns n periods, uniform in [1 s, 60 s), and a phase in
// [0, period) for each, in ns.
func intervalData(n int) (periods, phases []int64) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	periods, phases = make([]int64, n), make([]int64, n)
	for i := range periods {
		periods[i] = 1e9 + r.Int64N(59e9)
		phases[i] = r.Int64N(periods[i])
	}
	return periods, phases
}

// chItem and chHeap are the textbook container/heap priority queue: pointer
// items that record their own index, keys read through the pointers.
type chItem struct {
	when  int64
	seq   uint64
	index int
}

type chHeap []*chItem

func (h chHeap) Len() int { return len(h) }

func (h chHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

func (h chHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *chHeap) Push(x any) {
	it := x.(*chItem)
	it.index = len(*h)
	*h = append(*h, it)
}

func (h *chHeap) Pop() any {
	old := *h
	n := len(old)
	it := old[n-1]
	old[n-1] = nil
	it.index = -1
	*h = old[:n-1]
	return it
}

func chPush(h *chHeap, it *chItem, when int64, seq uint64) {
	it.when, it.seq = when, seq
	heap.Push(h, it)
}

func fillContainerHeap(n int, d benchData) (*chHeap, []chItem) {
	items := make([]chItem, n)
	h := &chHeap{}
	for i := range items {
		chPush(h, &items[i], d.keys[i], uint64(i))
	}
	return h, items
}

func BenchmarkContainerHeap(b *testing.B) {
	for _, size := range benchSizes {
		d := newBenchData(size.n)
		b.Run("schedule-cancel/"+size.name, func(b *testing.B) {
			h, _ := fillContainerHeap(size.n, d)
			x := &chItem{}
			seq := uint64(size.n)
			startTimer(b)
			for i := 0; i < b.N; i++ {
				chPush(h, x, d.keys[i&d.mask], seq)
				heap.Remove(h, x.index)
				seq++
			}
		})
		b.Run("cancel-readd/"+size.name, func(b *testing.B) {
			h, items := fillContainerHeap(size.n, d)
			seq := uint64(size.n)
			startTimer(b)
			for i := 0; i < b.N; i++ {
				x := &items[d.picks[i&d.mask]]
				heap.Remove(h, x.index)
				chPush(h, x, d.keys[(i+7)&d.mask], seq)
				seq++
			}
		})
		b.Run("fire/"+size.name, func(b *testing.B) {
			h, _ := fillContainerHeap(size.n, d)
			x := &chItem{}
			seq := uint64(size.n)
			startTimer(b)
			for i := 0; i < b.N; i++ {
				chPush(h, x, x.when+d.keys[i&d.mask], seq)
				x = heap.Pop(h).(*chItem)
				seq++
			}
		})
	}
	b.Run("intervals/10k", func(b *testing.B) {
		periods, phases := intervalData(intervalsSize)
		items := make([]chItem, len(periods))
		h := &chHeap{}
		for i := range items {
			chPush(h, &items[i], phases[i], uint64(i))
		}
		startTimer(b)
		for i := 0; i < b.N; i++ {
			x := (*h)[0]
			x.when += periods[x.seq]
			heap.Fix(h, 0)
		}
	})
	d := newBenchData(drainSize) // outside the sub-benchmark: its allocations are not the drain's
	b.Run("drain/1M", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			h, _ := fillContainerHeap(drainSize, d)
			runtime.GC()
			b.StartTimer()
			for h.Len() > 0 {
				heap.Pop(h)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*drainSize), "ns/pop")
	})
}
