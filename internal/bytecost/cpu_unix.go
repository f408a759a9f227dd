//go:build unix

package bytecost

import "syscall"

// cpuTime is the user and system CPU time the process has used, in nanoseconds, or -1.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
