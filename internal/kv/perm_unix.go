//go:build unix

package kv

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// secure returns why info — the store file (dir false) or the directory holding it — may
// not be trusted: another user owns it, group or others can write it, or (the file) others
// can read it. Root may own the directory.
func secure(path string, info fs.FileInfo, dir bool) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	me := uint32(os.Geteuid())
	mode := info.Mode().Perm()
	what := "file"
	if dir {
		what = "directory"
	}
	switch {
	case st.Uid != me && !(dir && st.Uid == 0):
		return &Insecure{Problem: fmt.Sprintf("the %s %s is owned by user %d, not this process's user %d", what, path, st.Uid, me),
			Fix: fmt.Sprintf("use a %s this user owns (chown %d %s)", what, me, path)}
	case mode&0o022 != 0:
		return &Insecure{Problem: fmt.Sprintf("the %s %s is writable by group or others (mode %04o)", what, path, mode),
			Fix: fmt.Sprintf("chmod go-w %s", path)}
	case !dir && mode&0o004 != 0:
		return &Insecure{Problem: fmt.Sprintf("the file %s is readable by others (mode %04o)", path, mode),
			Fix: fmt.Sprintf("chmod 600 %s", path)}
	case !dir && !info.Mode().IsRegular():
		return &Insecure{Problem: fmt.Sprintf("%s is not a regular file", path), Fix: "give the store a path of its own"}
	}
	return nil
}
