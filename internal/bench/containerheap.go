package bench

import "container/heap"

// HeapScheduler is the textbook container/heap timer scheduler, the peer with
// Go callbacks: one allocated job per schedule, the job pointer as the handle,
// heap.Remove to cancel and heap.Fix to re-arm an interval in place. Times are
// int64 ticks (the intervals scene uses milliseconds); due jobs run in
// (deadline, creation) order, like sched.Scheduler. The zero value is ready to
// use. It is not safe for concurrent use.
type HeapScheduler struct {
	q   jobQueue
	now int64
	seq uint64
}

// HeapJob is one job of a HeapScheduler.
type HeapJob struct {
	when   int64
	seq    uint64
	period int64 // 0: one-shot
	index  int   // position in the heap; -1 when not queued
	fn     func()
}

type jobQueue []*HeapJob

func (q jobQueue) Len() int { return len(q) }

func (q jobQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

func (q jobQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

func (q *jobQueue) Push(x any) {
	j := x.(*HeapJob)
	j.index = len(*q)
	*q = append(*q, j)
}

func (q *jobQueue) Pop() any {
	old := *q
	n := len(old)
	j := old[n-1]
	old[n-1] = nil
	j.index = -1
	*q = old[:n-1]
	return j
}

// Now returns the scheduler's time.
func (s *HeapScheduler) Now() int64 { return s.now }

// Len returns the number of pending jobs.
func (s *HeapScheduler) Len() int { return len(s.q) }

// ScheduleOnce runs fn once, delay after Now.
func (s *HeapScheduler) ScheduleOnce(delay int64, fn func()) *HeapJob {
	return s.push(&HeapJob{when: s.now + delay, fn: fn})
}

// ScheduleEvery runs fn every interval (> 0), first at Now+interval; an
// Advance that passes several periods fires once for each.
func (s *HeapScheduler) ScheduleEvery(interval int64, fn func()) *HeapJob {
	return s.push(&HeapJob{when: s.now + interval, period: interval, fn: fn})
}

func (s *HeapScheduler) push(j *HeapJob) *HeapJob {
	s.seq++
	j.seq = s.seq
	heap.Push(&s.q, j)
	return j
}

// Cancel stops future runs of j; it is idempotent.
func (s *HeapScheduler) Cancel(j *HeapJob) {
	if j.index >= 0 {
		heap.Remove(&s.q, j.index)
	}
}

// Advance runs every job due at or before Now+d, Now following each job's
// deadline, then sets Now to Now+d.
func (s *HeapScheduler) Advance(d int64) {
	target := s.now + d
	for len(s.q) > 0 {
		j := s.q[0]
		if j.when > target {
			break
		}
		s.now = j.when
		if j.period > 0 {
			j.when += j.period
			heap.Fix(&s.q, 0)
		} else {
			heap.Pop(&s.q)
		}
		j.fn()
	}
	s.now = target
}
