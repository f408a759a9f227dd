// Package kv wraps go.etcd.io/bbolt for the one thing hitlkit's file store needs: a durable
// map of byte keys to byte values in one file, each write committed to disk before it
// returns. No type of the library leaves this package.
//
// bbolt trusts its file: a damaged page makes it panic (or fault on its memory map). So a
// file is checked before bbolt is given it (its owner and mode, then every page its tree
// and freelist reach, see check), each bbolt call runs under recover with faults turned into
// panics, and after one recovered panic the DB refuses every further call: bbolt's locks and
// memory may be left in any state, and writing on would damage the file further.
package kv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

var bucket = []byte("hitlkit")

// Insecure: the file or its directory may not be trusted.
type Insecure struct{ Problem, Fix string }

func (e *Insecure) Error() string { return e.Problem + ": " + e.Fix }

// privateDir is the advice of a refusal that concerns the directory: keep the store in one
// only this user can write, such as the user's configuration directory.
func privateDir() string {
	if d, err := os.UserConfigDir(); err == nil {
		return "keep the store in a directory only this user can write, such as one of its own under " + d + " (os.UserConfigDir)"
	}
	return "keep the store in a directory only this user can write, such as one of its own under the home directory"
}

// Damaged: the file is not a sound store.
type Damaged struct{ Reason string }

func (e *Damaged) Error() string { return "damaged: " + e.Reason }

// ErrLocked: another process holds the file.
var ErrLocked = errors.New("kv: the file is held by another process")

// ErrClosed: a call on a DB after its Close.
var ErrClosed = errors.New("kv: the file is closed")

// DB is one open file. It is safe for concurrent use.
type DB struct {
	db   *bolt.DB
	file *os.File // the descriptor bbolt opened, closed here if bbolt cannot be

	mu         sync.Mutex
	broken     error // set by the first recovered panic
	queue      []*write
	committing bool
}

// opener returns a bolt OpenFile function that checks the descriptor it opens (owner and
// mode, on the descriptor itself, so the file checked is the file read) and remembers it.
// In a shared directory (see shared) it does not follow a symbolic link at path.
func opener(path string, sharedDir bool, got **os.File) func(string, int, os.FileMode) (*os.File, error) {
	return func(name string, flag int, mode os.FileMode) (*os.File, error) {
		if sharedDir {
			flag |= noFollow
		}
		f, err := os.OpenFile(name, flag, mode)
		if err != nil {
			return nil, err
		}
		info, err := f.Stat()
		if err == nil {
			err = secure(path, info, false)
		}
		if err == nil && sharedDir && links(info) > 1 {
			// A second name for a file of this user's, made by someone else in the shared
			// directory, would have the store written over that file.
			err = &Insecure{Problem: fmt.Sprintf("the file %s has %d names (hard links) in a directory others can write", path, links(info)),
				Fix: "leave it and " + privateDir()}
		}
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		*got = f
		return f, nil
	}
}

// Open opens (or creates, readable and writable by the owner only) the file at path. It
// waits at most timeout for another process's lock on the file. It returns an *Insecure or
// *Damaged error, or ErrLocked, or the file system's error.
func Open(path string, timeout time.Duration) (*DB, error) { return open(path, timeout, false) }

// open is Open; noSync skips the disk syncs (for the fuzz target: a file's bytes, not its
// durability, are under test).
func open(path string, timeout time.Duration, noSync bool) (*DB, error) {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if err := secure(dir, info, true); err != nil {
		return nil, err
	}
	sharedDir := shared(info)
	if sharedDir {
		// Another user may have put a link at path before this process created its file.
		if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, &Insecure{Problem: fmt.Sprintf("%s is a symbolic link in %s, a directory others can write", path, dir),
				Fix: "leave it and " + privateDir()}
		}
	}
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		if err := verify(path, sharedDir, timeout); err != nil {
			return nil, err
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	d := &DB{}
	err = d.guard(func() error {
		var err error
		d.db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, NoSync: noSync, NoGrowSync: noSync, OpenFile: opener(path, sharedDir, &d.file)})
		if err != nil {
			return err
		}
		return d.db.Update(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucketIfNotExists(bucket)
			return err
		})
	})
	if err != nil {
		if d.db != nil && d.broken == nil {
			_ = d.db.Close()
		}
		return nil, classify(err)
	}
	return d, nil
}

// verify opens path read-only (a shared lock: no writer is at work while it is read), and
// walks the file's pages.
func verify(path string, sharedDir bool, timeout time.Duration) error {
	d := &DB{}
	err := d.guard(func() error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, ReadOnly: true, OpenFile: opener(path, sharedDir, &d.file)})
		if err != nil {
			return err
		}
		d.db = db
		info, err := d.file.Stat()
		if err != nil {
			return err
		}
		if err := check(d.file, info.Size()); err != nil {
			return &Damaged{Reason: err.Error()}
		}
		return nil
	})
	if d.db != nil && d.broken == nil {
		_ = d.db.Close() // bbolt closed the file itself when Open failed, and fail did after a panic
	}
	return classify(err)
}

// classify maps bbolt's errors to this package's.
func classify(err error) error {
	var ins *Insecure
	var dmg *Damaged
	switch {
	case err == nil, errors.As(err, &ins), errors.As(err, &dmg):
		return err
	case errors.Is(err, bolt.ErrTimeout), errors.Is(err, os.ErrDeadlineExceeded):
		return ErrLocked
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrVersionMismatch), errors.Is(err, bolt.ErrChecksum),
		errors.Is(err, bolt.ErrInvalidMapping):
		return &Damaged{Reason: err.Error()}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &Damaged{Reason: err.Error()} // bbolt's other open errors are about the file's bytes ("file size too small")
}

// guard runs f, a call into bbolt, turning a panic or a memory fault into a *Damaged error
// that every later call returns too.
func (d *DB) guard(f func() error) (err error) {
	d.mu.Lock()
	broken := d.broken
	d.mu.Unlock()
	if broken != nil {
		return broken
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = d.fail(fmt.Sprint(p))
		}
	}()
	if err = f(); errors.Is(err, bolt.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// fail marks the DB broken and closes its descriptor (bbolt's Close could wait forever on a
// lock the panic left held), which releases the file's lock; bbolt's memory map stays.
func (d *DB) fail(reason string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.broken == nil {
		d.broken = &Damaged{Reason: reason}
		if d.file != nil {
			_ = d.file.Close()
		}
	}
	return d.broken
}

type write struct {
	key, value []byte // value nil: delete
	done       chan error
}

// Put stores value under key; it returns once the write is on disk. Writes that arrive
// while another commits share the next commit, so many waits starting at once cost a few
// disk syncs, not one each.
func (d *DB) Put(key, value []byte) error { return d.write(&write{key: key, value: value}) }

// Delete removes key; a key that is not there is no error. Deletes are grouped as Puts are.
func (d *DB) Delete(key []byte) error { return d.write(&write{key: key}) }

func (d *DB) write(w *write) error {
	w.done = make(chan error, 1)
	d.mu.Lock()
	d.queue = append(d.queue, w)
	if d.committing {
		d.mu.Unlock()
		return <-w.done
	}
	d.committing = true
	for len(d.queue) > 0 {
		batch := d.queue
		d.queue = nil
		d.mu.Unlock()
		err := d.commit(batch)
		for _, b := range batch {
			b.done <- err
		}
		d.mu.Lock()
	}
	d.committing = false
	d.mu.Unlock()
	return <-w.done
}

func (d *DB) commit(batch []*write) error {
	return d.guard(func() error {
		return d.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			for _, w := range batch {
				var err error
				if w.value == nil {
					err = b.Delete(w.key)
				} else {
					err = b.Put(w.key, w.value)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Load stores every pair in one commit.
func (d *DB) Load(pairs [][2][]byte) error {
	batch := make([]*write, len(pairs))
	for i, p := range pairs {
		batch[i] = &write{key: p[0], value: p[1]}
	}
	return d.commit(batch)
}

// Each calls f with a copy of every key and value, in key order, until f returns an error.
func (d *DB) Each(f func(key, value []byte) error) error {
	var out [][2][]byte
	err := d.guard(func() error {
		return d.db.View(func(tx *bolt.Tx) error {
			return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
				out = append(out, [2][]byte{append([]byte(nil), k...), append([]byte(nil), v...)})
				return nil
			})
		})
	})
	if err != nil {
		return err
	}
	for _, kv := range out {
		if err := f(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the file. After a recovered panic it only returns that error.
func (d *DB) Close() error {
	d.mu.Lock()
	broken := d.broken
	d.mu.Unlock()
	if broken != nil {
		return nil
	}
	return d.guard(d.db.Close)
}

// Salvage reads every key and value it can reach in the file at path, in any meta's tree,
// without bbolt and without a lock (nothing may hold the file), skipping pages it cannot
// read. It reads the newest tree, and an older one only for what the newer could not read:
// a record of an older tree may be one the newer had deleted.
func Salvage(path string, f func(key, value []byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return err
	}
	if err := secure(path, info, false); err != nil {
		return err
	}
	seen := map[string]bool{}
	var ferr error
	for _, m := range metas(file) {
		if m.pageSize < 512 || m.pageSize > 1<<20 {
			continue
		}
		w := &walker{r: file, size: info.Size(), m: m, lenient: true, reached: map[uint64]bool{},
			record: func(b, k, v []byte) {
				if string(b) != string(bucket) || seen[string(k)] || ferr != nil {
					return
				}
				seen[string(k)] = true
				ferr = f(append([]byte(nil), k...), append([]byte(nil), v...))
			}}
		if err := w.tree(m.root, where{}, 0); err != nil {
			w.skipped++
		}
		if w.skipped == 0 {
			break
		}
	}
	return ferr
}
