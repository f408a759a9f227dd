//go:build !unix

package kv

import "io/fs"

// noFollow: no flag is added where file modes and owners are not Unix ones.
const noFollow = 0

// secure checks nothing where file modes and owners are not Unix ones.
func secure(string, fs.FileInfo, bool) error { return nil }

// shared: no directory is shared where file modes are not Unix ones.
func shared(fs.FileInfo) bool { return false }

// links: one name, where link counts are not Unix ones.
func links(fs.FileInfo) uint64 { return 1 }
