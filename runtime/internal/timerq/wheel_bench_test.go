package timerq

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// BenchmarkInsertCancel puts the wheel beside the heap and time.AfterFunc
// with Timer.Stop, each holding N pending timers (deadlines over about 18
// minutes), in two shapes:
//
//	schedule-cancel  insert a timer, then cancel it
//	cancel-readd     cancel a random pending timer, insert a new one
//
// and from one goroutine (g1) or two at once (g2, each on its own half of
// the timers, which it also set up, as a goroutine cancels the timers it
// set; ns/op is wall time over both goroutines' operations):
//
//	wheel      Wheel, g1 only: one owner, no lock
//	sharded    Sharded, 4 shards (twice GOMAXPROCS on 2 cores)
//	heap       Heap, behind a mutex for g2
//	afterfunc  time.AfterFunc(d, f) and Stop
//
// Besides wall time it reports cpu-ns/op, the process's CPU time (user and
// system, all threads) over the operations: on a shared machine it moves
// less with the other load than ns/op does, though a lock's spinning and
// the garbage collector count in it.
func BenchmarkInsertCancel(b *testing.B) {
	for _, size := range benchSizes {
		d := newBenchData(size.n)
		for _, shape := range []string{"schedule-cancel", "cancel-readd"} {
			for _, g := range []int{1, 2} {
				for _, impl := range []string{"wheel", "sharded", "heap", "afterfunc"} {
					if impl == "wheel" && g == 2 {
						continue
					}
					name := impl + "/" + shape + "/" + size.name + "/g" + string(rune('0'+g))
					b.Run(name, func(b *testing.B) {
						benchInsertCancel(b, impl, shape == "cancel-readd", size.n, g, d)
					})
				}
			}
		}
	}
}

func benchInsertCancel(b *testing.B, impl string, readd bool, n, g int, d benchData) {
	x := unsafe.Pointer(new(int64))
	f := func() {}
	var fill func(part int)       // sets up the timers of part (index % g == part)
	var ops func(part, count int) // count operations on them
	switch impl {
	case "wheel":
		w, _ := NewWheel[unsafe.Pointer](DefaultGeometry(), 0)
		ids := make([]ID, n)
		fill = func(int) {
			for i := range ids {
				ids[i] = w.Push(d.keys[i&d.mask], uint64(i), x)
			}
		}
		seq := uint64(n)
		ops = func(_, count int) {
			for i := range count {
				seq++
				if readd {
					p := d.picks[i&d.mask]
					w.Remove(ids[p])
					ids[p] = w.Push(d.keys[i&d.mask], seq, x)
				} else {
					w.Remove(w.Push(d.keys[i&d.mask], seq, x))
				}
			}
		}
	case "sharded":
		s, _ := NewSharded[unsafe.Pointer](DefaultGeometry(), 0, 4)
		hs := make([]Handle, n)
		fill = func(part int) {
			for i := part; i < n; i += g {
				hs[i], _ = s.Add(d.keys[i&d.mask], x)
			}
		}
		ops = func(part, count int) {
			for i := part; i < count*g; i += g {
				if readd {
					p := d.pick(i, part, g, n)
					s.Remove(hs[p])
					hs[p], _ = s.Add(d.keys[i&d.mask], x)
				} else {
					h, _ := s.Add(d.keys[i&d.mask], x)
					s.Remove(h)
				}
			}
		}
	case "heap":
		var mu sync.Mutex
		h := &Heap[unsafe.Pointer]{}
		ids := make([]ID, n)
		fill = func(part int) {
			for i := part; i < n; i += g {
				mu.Lock()
				ids[i] = h.Push(d.keys[i&d.mask], uint64(i), x)
				mu.Unlock()
			}
		}
		seq := uint64(n)
		ops = func(part, count int) {
			for i := part; i < count*g; i += g {
				mu.Lock()
				seq++
				if readd {
					p := d.pick(i, part, g, n)
					h.Remove(ids[p])
					ids[p] = h.Push(d.keys[i&d.mask], seq, x)
				} else {
					h.Remove(h.Push(d.keys[i&d.mask], seq, x))
				}
				mu.Unlock()
			}
		}
	case "afterfunc":
		ts := make([]*time.Timer, n)
		fill = func(part int) {
			for i := part; i < n; i += g {
				ts[i] = time.AfterFunc(time.Hour+time.Duration(d.keys[i&d.mask]), f)
			}
		}
		defer func() {
			b.StopTimer() // the clean-up is not the benchmark
			for _, t := range ts {
				t.Stop()
			}
		}()
		ops = func(part, count int) {
			for i := part; i < count*g; i += g {
				dl := time.Hour + time.Duration(d.keys[i&d.mask])
				if readd {
					p := d.pick(i, part, g, n)
					ts[p].Stop()
					ts[p] = time.AfterFunc(dl, f)
				} else {
					time.AfterFunc(dl, f).Stop()
				}
			}
		}
	}
	if g == 1 {
		fill(0)
		startTimer(b)
		cpu := cpuTime()
		ops(0, b.N)
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		return
	}
	var filled, done sync.WaitGroup
	start := make(chan struct{})
	for part := range g {
		filled.Add(1)
		done.Go(func() {
			fill(part)
			filled.Done()
			<-start
			ops(part, (b.N+g-1)/g)
		})
	}
	filled.Wait()
	startTimer(b)
	cpu := cpuTime()
	close(start)
	done.Wait()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkMemoryPerPending reports the bytes the heap holds per pending
// timer, after n inserts: for the wheel and the sharded wheel (arena, slot
// lists and bitmaps), the heap, and time.AfterFunc (its Timer).
func BenchmarkMemoryPerPending(b *testing.B) {
	x := unsafe.Pointer(new(int64))
	f := func() {}
	for _, size := range benchSizes {
		d := newBenchData(size.n)
		for _, impl := range []string{"wheel", "sharded", "heap", "afterfunc"} {
			b.Run(impl+"/"+size.name, func(b *testing.B) {
				b.ReportAllocs()
				var per float64
				for range b.N {
					var keep any
					before := heapBytes()
					switch impl {
					case "wheel":
						w, _ := NewWheel[unsafe.Pointer](DefaultGeometry(), 0)
						for i := range size.n {
							w.Push(d.keys[i&d.mask], uint64(i), x)
						}
						keep = w
					case "sharded":
						s, _ := NewSharded[unsafe.Pointer](DefaultGeometry(), 0, 4)
						for i := range size.n {
							s.Add(d.keys[i&d.mask], x)
						}
						keep = s
					case "heap":
						h := &Heap[unsafe.Pointer]{}
						for i := range size.n {
							h.Push(d.keys[i&d.mask], uint64(i), x)
						}
						keep = h
					case "afterfunc":
						ts := make([]*time.Timer, size.n)
						for i := range ts {
							ts[i] = time.AfterFunc(time.Hour+time.Duration(d.keys[i&d.mask]), f)
						}
						// The slice of handles is the caller's, as the IDs are for the others.
						per = float64(heapBytes()-before-uint64(8*size.n)) / float64(size.n)
						for _, t := range ts {
							t.Stop()
						}
						runtime.KeepAlive(ts)
						continue
					}
					per = float64(heapBytes()-before) / float64(size.n)
					runtime.KeepAlive(keep)
				}
				b.ReportMetric(per, "B/timer")
			})
		}
	}
}

func heapBytes() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkVirtualDay is the 24-hour virtual run at the queue's level:
// 10,000 intervals of 1 to 60 s (random phases), drained in steps of one
// second for 24 hours, about 61 million fires, each re-queued by its
// period with a fresh seq, as a scheduler does. The heap re-keys in place
// (Update); the wheel pops and pushes. ns/op is the whole day; the wheel's
// run fails if its trace (a hash of every fire's deadline and value, in
// order) differs from the heap's.
func BenchmarkVirtualDay(b *testing.B) {
	const n, day, step = 10_000, int64(86_400e9), int64(1e9)
	periods, phases := intervalData(n)
	var heapTrace uint64
	b.Run("heap", func(b *testing.B) {
		for range b.N {
			h := &Heap[int]{}
			for i := range n {
				h.Push(phases[i], uint64(i), i)
			}
			seq, fires, trace := uint64(n), 0, uint64(0)
			startTimer(b)
			for now := step; now <= day; now += step {
				for d := h.Drain(now); ; {
					id, when, _, v, ok := d.Peek()
					if !ok {
						break
					}
					trace = mix(trace, when, v)
					fires++
					h.Update(id, when+periods[v], seq)
					seq++
				}
			}
			b.StopTimer()
			heapTrace = trace
			b.ReportMetric(float64(fires), "fires")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(fires)/float64(b.N), "ns/fire")
		}
	})
	b.Run("wheel", func(b *testing.B) {
		for range b.N {
			w, _ := NewWheel[int](DefaultGeometry(), 0)
			for i := range n {
				w.Push(phases[i], uint64(i), i)
			}
			seq, fires, trace := uint64(n), 0, uint64(0)
			startTimer(b)
			for now := step; now <= day; now += step {
				for {
					_, when, _, v, ok := w.PopDue(now)
					if !ok {
						break
					}
					trace = mix(trace, when, v)
					fires++
					w.Push(when+periods[v], seq, v)
					seq++
				}
			}
			b.StopTimer()
			if heapTrace != 0 && trace != heapTrace {
				b.Fatalf("the wheel's trace differs from the heap's")
			}
			b.ReportMetric(float64(fires), "fires")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(fires)/float64(b.N), "ns/fire")
		}
	})
}

// mix folds a fire into a trace hash.
func mix(h uint64, when int64, v int) uint64 {
	h ^= uint64(when)*0x9e3779b97f4a7c15 + uint64(v)
	return h*0xff51afd7ed558ccd + 1
}

// pick is the timer that operation i of goroutine part (of g) cancels in
// cancel-readd: a random one among those part set up (index % g == part).
func (d benchData) pick(i, part, g, n int) int {
	p := int(d.picks[i&d.mask])
	p += part - p%g
	if p >= n {
		p = part
	}
	return p
}
