//go:build !unix

package bytecost

// cpuTime is -1 where the process's CPU time is not read.
func cpuTime() int64 { return -1 }
