// Package filestore is a [hitl.Store] in one file, kept with bbolt (a single-file, pure-Go
// B+tree that commits each write to disk before it returns). It is a package of its own so
// that a program that keeps its interrupts elsewhere links no bbolt.
//
// The file is what an agent reads on every restart, and its records name the origins the
// agent sends its credential to, so [Open] trusts a file only when this process's user owns
// it and no one else can change it or the name it has ([ErrInsecure]): its directory is this
// user's or root's, and closed to others' writes or, as /tmp is, shared with the sticky bit
// set. A damaged file is
// [ErrDamaged], never a crash, and is left as it was: [Salvage] copies every record still
// readable into a new file.
//
// Give Open a file path in a directory of this user's (mkdir -m 700 -p DIR), and check its
// error: the *Store it returns with one is nil, and its methods only return an error.
//
//	store, err := filestore.Open("/var/lib/agent/hitl.db")
//	if err != nil {
//		return err // an *Error says what to do
//	}
//	defer store.Close()
//	client, err := hitl.NewClient(hitl.WithStore(store))
package filestore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/kv"
)

// Store is a [hitl.Store] in one file, created readable and writable by its owner only
// (mode 0600). One process holds the file at a time; a second waits for its lock (see
// [Open]). Safe for concurrent use; Close it when done. Make one with Open only: the methods
// of a nil *Store (what Open returns with its error) or a zero Store return an error saying
// so, and never panic.
type Store struct {
	path string // as given to Open
	abs  string // the key in opened
	db   *kv.DB
}

// opened are the files this process has open as a Store, by absolute path: a second Open of
// one of them is refused at once, where the file's lock would make it wait 5 s and then
// blame another process.
var opened = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

// errClosed is what a Store's methods return after Close.
var errClosed = errors.New("filestore: the store is closed: open it again with filestore.Open")

// errNil is what a nil *Store's methods return (Open returns nil with its error), and
// errZero a Store not made by Open's.
var (
	errNil  = errors.New("filestore: the *Store is nil: check filestore.Open's error before using the Store it returns")
	errZero = errors.New("filestore: the Store was not made by filestore.Open: use the one it returns, after checking filestore.Open's error")
)

// usable returns errNil or errZero for a Store no method can use.
func (s *Store) usable() error {
	switch {
	case s == nil:
		return errNil
	case s.db == nil:
		return errZero
	}
	return nil
}

var _ hitl.Store = (*Store)(nil)

var (
	// ErrLocked: another process holds the store's file, or this process has it open as
	// another Store.
	ErrLocked = errors.New("filestore: the store file is held by another process")
	// ErrInsecure: the file or its directory is owned by another user, writable by group or
	// others (a directory without its sticky bit), or (the file) readable by others, or a
	// link someone else could have made in a shared directory. An *Error says what to do;
	// about a directory, it names a private one (under os.UserConfigDir) rather than a mode
	// to set.
	ErrInsecure = errors.New("filestore: the store file may not be trusted")
	// ErrDamaged: the file is not a sound store. An *Error names it; it is left as it was,
	// for Salvage.
	ErrDamaged = errors.New("filestore: the store file is damaged")
	// ErrBadPath: the path given to Open cannot name a store file: it is a directory, or the
	// directory it names does not exist. An *Error says which, and what path to give.
	ErrBadPath = errors.New("filestore: the path cannot be a store file")
)

// Error is a store file that is insecure, damaged or held by another process, or a path that
// cannot be one: errors.Is matches ErrInsecure, ErrDamaged, ErrLocked or ErrBadPath.
type Error struct {
	Path   string
	Reason string // what is wrong
	Fix    string // what to do about it
	kind   error
	err    error // the file system's error, if any
}

func (e *Error) Error() string {
	return fmt.Sprintf("filestore: %s: %s; %s", e.Path, e.Reason, e.Fix)
}

// Is reports whether target is the sentinel of e's kind.
func (e *Error) Is(target error) bool { return target == e.kind }

// Unwrap returns the file system's error behind e, if any: a missing directory's matches
// fs.ErrNotExist.
func (e *Error) Unwrap() error { return e.err }

// lockWait is how long Open waits for another process to release the file.
const lockWait = 5 * time.Second

// Open opens the store in the file at path, creating it (mode 0600) if needed. It waits up
// to 5 s for another process to release the file, then fails with ErrLocked; a file this
// process has open already (through another Store not yet closed, by the same name or a
// symbolic link to it) is ErrLocked at once: share that Store, which is safe for concurrent
// use. A path that is a directory (the store is one file: give a path inside it, such as
// DIR/hitl.db), or whose directory does not exist, is an *Error matching ErrBadPath (the
// latter also fs.ErrNotExist) that says what path to give or how to create the directory;
// Open creates no directory, and in these cases no file.
//
// Before it reads a record, Open checks (on Unix) that the directory holding path is owned by
// this process's user or root and that group and others cannot write it — or, if they can,
// that its sticky bit is set (as on /tmp, mode 1777), so that no one else can remove or rename
// this user's file — and that the file, when it exists, is owned by this user, writable by
// no one else and readable by no other user than the group: otherwise an *Error matching
// ErrInsecure (another user could plant an interrupt whose origin would receive the agent's
// credential on Resume, or read the review tokens). In a shared directory it also refuses a
// path that is a symbolic link, or a file with a second name (hard link), which another user
// could have put there to have the store written over one of this user's files. It then reads
// every page the file's tree reaches: a damaged file is an *Error matching ErrDamaged, the file
// untouched. An empty file is a new store.
//
// The file keeps two copies of its root (bbolt's two meta pages) and is read from the newer
// one that is sound: a commit cut short by a crash — the write that was committing had not
// returned — leaves the newer copy unsound and the store as it was before that write. So
// damage confined to the newer copy also reads as the store before its last write, not as
// ErrDamaged.
func Open(path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("filestore: %s: %w", path, err)
	}
	if err := checkPath(path, abs); err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // the file exists: its one name, whatever link leads to it
	}
	// Reserve the name, then open without holding the lock: the file's lock may take 5 s,
	// and other Stores open and close meanwhile.
	opened.Lock()
	taken := opened.paths[abs]
	opened.paths[abs] = true
	opened.Unlock()
	if taken {
		return nil, &Error{Path: path, Reason: "this process has the store file open already", kind: ErrLocked,
			Fix: "share the Store Open returned (it is safe for concurrent use), or Close it before opening the file again"}
	}
	db, err := kv.Open(path, lockWait)
	if err != nil {
		opened.Lock()
		delete(opened.paths, abs)
		opened.Unlock()
		return nil, wrap(path, err)
	}
	return &Store{path: path, abs: abs, db: db}, nil
}

// checkPath refuses, before anything is created, a path that cannot be a store file: a
// directory (or a link to one), or a path in a directory that does not exist.
func checkPath(path, abs string) error {
	if info, err := os.Stat(abs); err == nil && info.IsDir() {
		return &Error{Path: path, Reason: "the path is a directory, not a store file", kind: ErrBadPath,
			Fix: "give the path of a file inside it, such as " + filepath.Join(path, "hitl.db")}
	}
	if _, err := os.Stat(filepath.Dir(abs)); errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		return &Error{Path: path, Reason: "the directory " + dir + " does not exist", kind: ErrBadPath, err: err,
			Fix: fmt.Sprintf("create it first, private to this user: mkdir -m 700 -p %s, or os.MkdirAll(%q, 0o700)", dir, dir)}
	}
	return nil
}

// wrap turns kv's errors into this package's.
func wrap(path string, err error) error {
	var (
		ins *kv.Insecure
		dmg *kv.Damaged
	)
	switch {
	case errors.Is(err, kv.ErrLocked):
		return &Error{Path: path, Reason: "another process holds the store file (waited 5 s)", kind: ErrLocked,
			Fix: "one process opens a store at a time: stop the other one, or give this one a store file of its own"}
	case errors.Is(err, kv.ErrClosed):
		return errClosed
	case errors.As(err, &ins):
		return &Error{Path: path, Reason: ins.Problem, Fix: ins.Fix, kind: ErrInsecure}
	case errors.As(err, &dmg):
		return &Error{Path: path, Reason: dmg.Error(), kind: ErrDamaged,
			Fix: "the file is left as it was: filestore.Salvage copies what is readable into a new file (close any Store open on it first)"}
	}
	return fmt.Errorf("filestore: %s: %w", path, err)
}

func key(k hitl.StoreKey) []byte { return []byte(k.Origin + "\n" + k.ID) }

func storeKey(b []byte) hitl.StoreKey {
	origin, id, _ := bytes.Cut(b, []byte("\n"))
	return hitl.StoreKey{Origin: string(origin), ID: string(id)}
}

// Put implements hitl.Store; it returns once the write is on disk. After the file is found
// damaged it returns an *Error matching ErrDamaged and writes nothing.
func (s *Store) Put(_ context.Context, it *hitl.Interrupt) error {
	if err := s.usable(); err != nil {
		return err
	}
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	if err := s.db.Put(key(it.Key()), b); err != nil {
		return wrap(s.path, err)
	}
	return nil
}

// Delete implements hitl.Store.
func (s *Store) Delete(_ context.Context, k hitl.StoreKey) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.db.Delete(key(k)); err != nil {
		return wrap(s.path, err)
	}
	return nil
}

// List implements hitl.Store; the interrupts are in key order. A record that is not an
// interrupt's JSON, or whose JSON is an interrupt of another key (a kind this version does
// not know), is reported as a *hitl.RecordError and the others returned.
func (s *Store) List(_ context.Context) ([]*hitl.Interrupt, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	var (
		out []*hitl.Interrupt
		bad []error
	)
	err := s.db.Each(func(k, v []byte) error {
		var it hitl.Interrupt
		if err := json.Unmarshal(v, &it); err != nil {
			bad = append(bad, &hitl.RecordError{Key: storeKey(k), Err: err})
			return nil
		}
		if it.Key() != storeKey(k) {
			bad = append(bad, &hitl.RecordError{Key: storeKey(k),
				Err: fmt.Errorf("the record (kind %q) is not an interrupt of its key: a kind this version does not know?", it.Kind)})
			return nil
		}
		out = append(out, &it)
		return nil
	})
	if err != nil {
		return nil, wrap(s.path, err)
	}
	return out, errors.Join(bad...)
}

// Close closes the file; the Store's methods then return an error saying it is closed, and
// the file may be opened again. Closing twice is no error.
func (s *Store) Close() error {
	if err := s.usable(); err != nil {
		return err
	}
	opened.Lock()
	if s.abs != "" {
		delete(opened.paths, s.abs)
		s.abs = ""
	}
	opened.Unlock()
	if err := s.db.Close(); err != nil {
		return wrap(s.path, err)
	}
	return nil
}

// Salvage copies every record still readable in the store file from — one that Open reports
// damaged — into a new store file to, and returns how many it copied. It reads from's pages
// itself, not through bbolt, skipping the ones it cannot read; from is not changed, and no
// process may have it open. to must not exist. The copies are records as they were stored:
// List on the new store reports any that is not an interrupt.
func Salvage(from, to string) (int, error) {
	if _, err := os.Lstat(to); err == nil {
		return 0, fmt.Errorf("filestore: salvage: %s exists", to)
	}
	var pairs [][2][]byte
	err := kv.Salvage(from, func(k, v []byte) error {
		pairs = append(pairs, [2][]byte{k, v})
		return nil
	})
	if err != nil {
		return 0, wrap(from, err)
	}
	dst, err := kv.Open(to, lockWait)
	if err != nil {
		return 0, wrap(to, err)
	}
	err = dst.Load(pairs)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, wrap(to, err)
	}
	return len(pairs), nil
}
