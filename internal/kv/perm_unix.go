//go:build unix

package kv

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// noFollow is added to the open flags of a store file in a shared (sticky) directory, so that
// a symbolic link another user planted at its path is not followed.
const noFollow = syscall.O_NOFOLLOW

// secure returns why info — the store file (dir false) or the directory holding it — may
// not be trusted: another user owns it, group or others can write it (a directory may let
// them if its sticky bit is set: see shared), or (the file) others can read it. Root may own
// the directory. No refusal advises changing a directory's mode: a shared directory such as
// /tmp must stay as it is, and the fix is a directory of one's own.
func secure(path string, info fs.FileInfo, dir bool) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	me := uint32(os.Geteuid())
	mode := info.Mode().Perm()
	switch {
	case dir && st.Uid != me && st.Uid != 0:
		return &Insecure{Problem: fmt.Sprintf("the directory %s is owned by user %d, not this process's user %d or root", path, st.Uid, me),
			Fix: privateDir()}
	case dir && mode&0o022 != 0 && !shared(info):
		return &Insecure{Problem: fmt.Sprintf("the directory %s is writable by group or others without the sticky bit (mode %04o): they could replace the store file", path, mode),
			Fix: privateDir()}
	case dir:
		return nil
	case st.Uid != me:
		return &Insecure{Problem: fmt.Sprintf("the file %s is owned by user %d, not this process's user %d", path, st.Uid, me),
			Fix: fmt.Sprintf("if this user made it, chown %d %s; if not, leave it and %s", me, path, privateDir())}
	case mode&0o022 != 0:
		return &Insecure{Problem: fmt.Sprintf("the file %s is writable by group or others (mode %04o)", path, mode),
			Fix: fmt.Sprintf("chmod go-w %s", path)}
	case mode&0o004 != 0:
		return &Insecure{Problem: fmt.Sprintf("the file %s is readable by others (mode %04o)", path, mode),
			Fix: fmt.Sprintf("chmod 600 %s", path)}
	case !info.Mode().IsRegular():
		return &Insecure{Problem: fmt.Sprintf("%s is not a regular file", path), Fix: "give the store a path of its own"}
	}
	return nil
}

// shared reports whether the directory info lets group or others write in it, with its
// sticky bit set (as /tmp, mode 1777): they may add files but not remove or rename another
// user's. A store file there is trusted as long as the file itself is this user's and closed
// to others, and its path is not a symbolic link.
func shared(info fs.FileInfo) bool {
	return info.Mode().Perm()&0o022 != 0 && info.Mode()&fs.ModeSticky != 0
}

// links is the number of names (hard links) of the file info describes.
func links(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
