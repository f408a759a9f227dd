// Package filestore is a [hitl.Store] in one file, kept with bbolt (a single-file, pure-Go
// B+tree that commits each write to disk before it returns). It is a package of its own so
// that a program that keeps its interrupts elsewhere links no bbolt.
package filestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/kv"
)

// Store is a [hitl.Store] in one file, created readable by its owner only. One process holds
// the file at a time; a second waits for its lock (see [Open]). Safe for concurrent use;
// Close it when done.
type Store struct{ db *kv.DB }

var _ hitl.Store = (*Store)(nil)

// ErrLocked: another process holds the store's file.
var ErrLocked = errors.New("filestore: the store file is held by another process")

// lockWait is how long Open waits for another process to release the file.
const lockWait = 5 * time.Second

// Open opens the store in the file at path, creating it (mode 0600) if needed. It waits up
// to 5 s for another process to release the file, then fails with ErrLocked.
func Open(path string) (*Store, error) {
	db, err := kv.Open(path, lockWait)
	if err != nil {
		if kv.Locked(err) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("filestore: open: %w", err)
	}
	return &Store{db: db}, nil
}

func key(k hitl.StoreKey) []byte { return []byte(k.Origin + "\n" + k.ID) }

// Put implements hitl.Store; it returns once the write is on disk.
func (s *Store) Put(_ context.Context, it *hitl.Interrupt) error {
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	return s.db.Put(key(it.Key()), b)
}

// Delete implements hitl.Store.
func (s *Store) Delete(_ context.Context, k hitl.StoreKey) error { return s.db.Delete(key(k)) }

// List implements hitl.Store; the interrupts are in key order.
func (s *Store) List(_ context.Context) ([]*hitl.Interrupt, error) {
	var out []*hitl.Interrupt
	err := s.db.Each(func(v []byte) error {
		var it hitl.Interrupt
		if err := json.Unmarshal(v, &it); err != nil {
			return fmt.Errorf("filestore: stored interrupt: %w", err)
		}
		out = append(out, &it)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }
