// Package persist keeps the reference server's state in a directory: one
// go.etcd.io/bbolt file of named buckets, whose rows are keys and values of
// bytes. Each Update is one transaction, fsync'd before it returns; the file
// is locked, so that a second process on the directory is refused; and a
// file this build cannot read (corrupt, cut short, not a state, or of a newer
// format) is refused as it is, never written. What the rows hold is the
// caller's (package scribetest).
package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// FileName is the file of the state in its directory.
const FileName = "state.db"

// Version is the format of the state this build reads and writes. A state of
// an older format would be migrated; one of a newer format is refused.
const Version = 1

// The bucket persist keeps the format in; callers name theirs otherwise.
var (
	metaBucket = []byte("meta")
	versionKey = []byte("version")
)

// lockWait is how long Open waits for another process to let the file go.
const lockWait = 200 * time.Millisecond

// ErrInUse is wrapped by the Error of a directory another process has open.
var ErrInUse = errors.New("in use by another process")

// Error is a state that cannot be used: in use, unreadable, or of a newer
// format. It names the file.
type Error struct {
	Path string // the state's file
	Err  error  // what is wrong
}

func (e *Error) Error() string { return "state " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// DB is a state directory, open.
type DB struct {
	bolt  *bolt.DB
	path  string
	fresh bool
}

// Open opens the state in dir, creating the directory and its file if they
// are missing. A file that exists is checked first, read only: its format,
// its size against what it records, and every page, so that
// a state that cannot be read is refused before it is opened for writing.
func Open(dir string) (*DB, error) {
	path := filepath.Join(dir, FileName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, &Error{path, err}
	}
	fresh, err := check(path)
	if err != nil {
		return nil, &Error{path, err}
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait})
	if err != nil {
		return nil, &Error{path, wordOpen(err, dir)}
	}
	return &DB{bolt: b, path: path, fresh: fresh}, nil
}

// wordOpen says what bolt.Open's error means.
func wordOpen(err error, dir string) error {
	if errors.Is(err, bolterrors.ErrTimeout) {
		return fmt.Errorf("%w: another scribe-server or scribetest.Server has the directory %s open; stop it, or give another directory", ErrInUse, dir)
	}
	return fmt.Errorf("cannot be read: %w; it was left as it is", err)
}

// check reads the file at path, if it has any content, and says whether it
// holds no state yet.
func check(path string) (fresh bool, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, nil
	case err != nil:
		return false, err
	case info.Size() == 0: // created, never written
		return true, nil
	}
	defer func() { // bbolt asserts what it reads, with panics
		if r := recover(); r != nil {
			err = fmt.Errorf("is corrupt: %v; it was left as it is", r)
		}
	}()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: lockWait})
	if err != nil {
		return false, wordOpen(err, filepath.Dir(path))
	}
	defer b.Close()
	err = b.View(func(tx *bolt.Tx) error {
		if tx.Size() > info.Size() {
			return fmt.Errorf("is cut short: %d bytes, of the %d it records; it was left as it is", info.Size(), tx.Size())
		}
		// Every page is read once, here, where a damaged one panics.
		if err := tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return b.ForEach(func(_, _ []byte) error { return nil }) }); err != nil {
			return err
		}
		fresh, err = version(tx)
		return err
	})
	return fresh, err
}

// version checks the format of the state in tx, and says whether it holds
// none yet.
func version(tx *bolt.Tx) (fresh bool, err error) {
	meta := tx.Bucket(metaBucket)
	if meta == nil {
		if k, _ := tx.Cursor().First(); k != nil { // buckets, but not ours
			return false, errors.New("is not a scribe-server state: it has no format version")
		}
		return true, nil
	}
	v, err := strconv.Atoi(string(meta.Get(versionKey)))
	switch {
	case err != nil:
		return false, fmt.Errorf("has a format version that is not a number: %q", meta.Get(versionKey))
	case v > Version:
		return false, fmt.Errorf("is of format version %d, newer than this build's (%d): run a newer scribe-server on it, or give another directory", v, Version)
	}
	return false, nil
}

// Path is the state's file.
func (db *DB) Path() string { return db.path }

// Fresh reports whether the state held nothing when it was opened: its
// file was missing, empty or never written.
func (db *DB) Fresh() bool { return db.fresh }

// Close closes the file and lets it go to another process.
func (db *DB) Close() error { return db.bolt.Close() }

// Tx is a transaction of Update.
type Tx struct{ tx *bolt.Tx }

// Set sets the row key of bucket (created if missing) to value, or removes
// it if value is nil.
func (t *Tx) Set(bucket string, key, value []byte) error {
	if value == nil {
		if b := t.tx.Bucket([]byte(bucket)); b != nil {
			return b.Delete(key)
		}
		return nil
	}
	b, err := t.tx.CreateBucketIfNotExists([]byte(bucket))
	if err == nil {
		err = b.Put(key, value)
	}
	return err
}

// Append adds value to bucket as the row after its last, Key(n) for the
// n after the last's, and returns n; with keep above 0 it removes the row
// keep rows before it, so that the bucket keeps the last keep rows.
func (t *Tx) Append(bucket string, value []byte, keep uint64) (uint64, error) {
	b, err := t.tx.CreateBucketIfNotExists([]byte(bucket))
	if err != nil {
		return 0, err
	}
	last, _ := b.Cursor().Last()
	n := KeyID(last) + 1
	if err = b.Put(Key(n), value); err == nil && keep > 0 && n > keep {
		err = b.Delete(Key(n - keep))
	}
	return n, err
}

// ClearAll removes every row.
func (t *Tx) ClearAll() error {
	var names [][]byte
	err := t.tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		if !bytes.Equal(name, metaBucket) {
			names = append(names, name)
		}
		return nil
	})
	for _, name := range names {
		err = errors.Join(err, t.tx.DeleteBucket(name))
	}
	return err
}

// Update runs fn in one transaction, which it commits, and fsyncs, unless fn
// fails: then nothing of it is written.
func (db *DB) Update(fn func(tx *Tx) error) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err == nil && meta.Get(versionKey) == nil {
			err = meta.Put(versionKey, []byte(strconv.Itoa(Version)))
		}
		if err != nil {
			return err
		}
		return fn(&Tx{tx})
	})
	if err != nil {
		return &Error{db.path, fmt.Errorf("cannot be written: %w", err)}
	}
	return nil
}

// Put sets one row, as Tx.Set does, and removes the rows of the keys drop,
// in one transaction.
func (db *DB) Put(bucket string, key, value []byte, drop ...[]byte) error {
	return db.Update(func(tx *Tx) error {
		for _, k := range drop {
			if err := tx.Set(bucket, k, nil); err != nil {
				return err
			}
		}
		return tx.Set(bucket, key, value)
	})
}

// Each calls fn with each row of bucket in the order of their keys, in one
// read transaction; key and value are valid during the call only. Its error
// is fn's, naming the row: "events row 7: ...", or "answers: ..." for a row
// whose key is not a Key.
func (db *DB) Each(bucket string, fn func(key, value []byte) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucket))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			err := fn(k, v)
			switch {
			case err == nil:
				return nil
			case len(k) == 8:
				return fmt.Errorf("%s row %d: %w", bucket, KeyID(k), err)
			}
			return fmt.Errorf("%s: %w", bucket, err)
		})
	})
}

// Key is the key of row n: big-endian, so that rows are in the order of n.
func Key(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// KeyID is the n of Key(n), or 0 for a key of another length.
func KeyID(key []byte) uint64 {
	if len(key) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(key)
}
