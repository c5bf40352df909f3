//go:build !unix

package timerq

// cpuTime is 0 where the process's CPU time is not read: cpu-ns/op is 0.
func cpuTime() int64 { return 0 }
