package authoritytest_test

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/runtime/keyed/authoritytest"
	"github.com/metronome-rt/metronome/temporal"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The local lease keeps the contract. Like a lease in etcd it is renewed
// in the background while held (every lease/10, so a loaded machine does
// not lose it by accident); it is lost by no longer renewing it and
// regained by Renew.
func TestLocalLeaseContract(t *testing.T) {
	clock := keyed.SystemClock()
	const lease = 200 * temporal.Millisecond
	authoritytest.Run(t, authoritytest.Harness{
		Clock:    clock,
		Interval: 5 * temporal.Millisecond,
		Within:   5 * temporal.Second,
		New: func(t *testing.T, s *keyed.Scheduler) authoritytest.Subject {
			o, err := s.NewOwner(lease)
			if err != nil {
				t.Fatal(err)
			}
			a := o.Authority()
			var stop, done chan struct{}
			renew := func() {
				stop, done = make(chan struct{}), make(chan struct{})
				go func(stop, done chan struct{}) {
					defer close(done)
					tk := time.NewTicker((lease / 10).Std())
					defer tk.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tk.C:
							_ = o.Renew()
						}
					}
				}(stop, done)
			}
			halt := func() {
				if stop != nil {
					close(stop)
					<-done
					stop = nil
				}
			}
			renew()
			t.Cleanup(halt)
			return authoritytest.Subject{
				Owner:     o,
				Authority: a,
				Lose: func(t *testing.T) {
					halt()
					// Wait out the deadline: lease arithmetic, bounded by the lease.
					l, _ := a.Lease()
					timer := time.NewTimer(time.Duration(l.Deadline - clock.Now().UnixNano()))
					defer timer.Stop()
					<-timer.C
				},
				Regain: func(t *testing.T) {
					if err := o.Renew(); err != nil {
						t.Fatal(err)
					}
					renew()
				},
			}
		},
	})
}
