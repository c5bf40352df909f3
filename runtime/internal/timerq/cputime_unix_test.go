//go:build unix

package timerq

import "syscall"

// cpuTime returns the CPU time the process has used, in ns (user and
// system, all threads).
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
