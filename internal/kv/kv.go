// Package kv wraps go.etcd.io/bbolt for the one thing hitlkit's file store needs: a durable
// map of byte keys to byte values in one file, each write committed to disk before it
// returns. No type of the library leaves this package.
package kv

import (
	"errors"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

var bucket = []byte("hitlkit")

// batchDelay is how long a write waits for others to share its commit (bbolt's default is
// 10 ms): a lone write pays it on top of its disk sync.
const batchDelay = time.Millisecond

// DB is one open file. It is safe for concurrent use.
type DB struct{ db *bolt.DB }

// Open opens (or creates, readable and writable by the owner only) the file at path. It
// waits at most timeout for another process's lock on the file.
func Open(path string, timeout time.Duration) (*DB, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, err
	}
	db.MaxBatchDelay = batchDelay
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		_ = db.Close()
		return nil, err
	}
	return &DB{db: db}, nil
}

// Put stores value under key. Writes that arrive together (within batchDelay of each
// other) share one commit, so many waits starting at once cost one disk sync, not one each;
// each returns only once its write is on disk.
func (d *DB) Put(key, value []byte) error {
	return d.db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Put(key, value) })
}

// Delete removes key; a key that is not there is no error. Deletes are batched as Puts are.
func (d *DB) Delete(key []byte) error {
	return d.db.Batch(func(tx *bolt.Tx) error { return tx.Bucket(bucket).Delete(key) })
}

// Each calls f with a copy of every value, in key order, until f returns an error.
func (d *DB) Each(f func(value []byte) error) error {
	return d.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(_, v []byte) error { return f(append([]byte(nil), v...)) })
	})
}

// Close closes the file.
func (d *DB) Close() error { return d.db.Close() }

// Locked reports whether err is the timeout of waiting for another process's lock.
func Locked(err error) bool {
	return errors.Is(err, bolt.ErrTimeout) || errors.Is(err, os.ErrDeadlineExceeded)
}
