package persist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

// rows returns the rows of bucket as "key=value" with the keys' n.
func rows(t *testing.T, db *DB, bucket string) []string {
	t.Helper()
	var out []string
	if err := db.Each(bucket, func(k, v []byte) error {
		out = append(out, fmt.Sprintf("%d=%s", KeyID(k), v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func put(t *testing.T, db *DB, bucket string, n uint64, value string) {
	t.Helper()
	if err := db.Update(func(tx *Tx) error { return tx.Set(bucket, Key(n), []byte(value)) }); err != nil {
		t.Fatal(err)
	}
}

// A missing directory is created and opens fresh; what an Update wrote is
// there, in key order, once the state is opened again, which is no longer
// fresh.
func TestOpenWriteReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "state")
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !db.Fresh() || db.Path() != filepath.Join(dir, FileName) {
		t.Errorf("a new directory: Fresh() = %v, Path() = %q; want true and %s", db.Fresh(), db.Path(), filepath.Join(dir, FileName))
	}
	put(t, db, "users", 300, "c")
	put(t, db, "users", 2, "a")
	put(t, db, "users", 20, "b")
	if err := db.Update(func(tx *Tx) error {
		return errors.Join(tx.Set("users", Key(20), nil), tx.Set("users", Key(99), nil), tx.Set("nothing", Key(1), nil))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Fresh() {
		t.Error("a state written once opens as fresh")
	}
	if got, want := rows(t, db, "users"), []string{"2=a", "300=c"}; !cmp.Equal(got, want) {
		t.Errorf("rows = %q, want %q", got, want)
	}
	if got := rows(t, db, "missing"); got != nil {
		t.Errorf("a bucket never written has rows %q", got)
	}
}

// An Update whose function fails writes nothing of it; ClearAll empties
// every bucket, and the state stays a state.
func TestUpdateIsAllOrNothing(t *testing.T) {
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, "a", 1, "kept")
	put(t, db, "b", 1, "kept")
	boom := errors.New("boom")
	err = db.Update(func(tx *Tx) error {
		if err := tx.Set("a", Key(2), []byte("lost")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update = %v, want an error wrapping fn's", err)
	}
	if got := rows(t, db, "a"); !cmp.Equal(got, []string{"1=kept"}) {
		t.Errorf("after a failed Update, rows = %q", got)
	}
	if err := db.Update(func(tx *Tx) error { return tx.ClearAll() }); err != nil {
		t.Fatal(err)
	}
	if a, b := rows(t, db, "a"), rows(t, db, "b"); a != nil || b != nil {
		t.Errorf("after ClearAll: a = %q, b = %q", a, b)
	}
	db.Close()
	if db, err = Open(db.Path()[:len(db.Path())-len(FileName)]); err != nil || db.Fresh() {
		t.Fatalf("reopened after ClearAll: %v, fresh %v; want a state, empty", err, db != nil && db.Fresh())
	}
	db.Close()
}

// A second Open of a directory that is open is refused, naming the
// directory, until the first lets it go. The lock is the file's (flock), so
// it holds between two processes as between two opens in one.
func TestSecondOpenRefused(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, "a", 1, "x")
	_, err = Open(dir)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) {
		t.Errorf("second Open = %v, want an *Error wrapping ErrInUse that names %s", err, dir)
	}
	db.Close()
	db, err = Open(dir)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	db.Close()
}

// written returns a directory holding a state of a few hundred rows, closed.
func written(t *testing.T) (dir string, file []byte) {
	t.Helper()
	dir = t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error {
		for n := range uint64(500) {
			if err := tx.Set("rows", Key(n), bytes.Repeat([]byte{'v'}, 100)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	file, err = os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// A state that cannot be read is refused with an error naming the file and
// what is wrong, and is left byte for byte as it was.
func TestUnreadableStateRefusedUnchanged(t *testing.T) {
	const page = 4096
	garbage := bytes.Repeat([]byte{0xA5}, page)
	tests := []struct {
		name   string
		damage func(file []byte) []byte
		want   string
	}{
		{"a data page overwritten", func(f []byte) []byte { return append(append(f[:4*page:4*page], garbage...), f[5*page:]...) }, "is corrupt"},
		{"cut short", func(f []byte) []byte { return f[:16*page] }, "is cut short"},
		{"both meta pages overwritten", func(f []byte) []byte { return append(bytes.Repeat([]byte{1}, 2*page), f[2*page:]...) }, "cannot be read"},
		{"not a bolt file", func([]byte) []byte { return []byte(`{"users": []}`) }, "cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, file := written(t)
			path := filepath.Join(dir, FileName)
			damaged := tt.damage(bytes.Clone(file))
			if err := os.WriteFile(path, damaged, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(dir)
			if err == nil {
				db.Close()
				t.Fatal("Open of a damaged state succeeded")
			}
			var e *Error
			if !errors.As(err, &e) || e.Path != path || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open = %v, want an *Error naming %s that says %q", err, path, tt.want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, damaged) {
				t.Error("Open changed the damaged file")
			}
		})
	}
}

// A state of a newer format, or a bbolt file that is not a state, is
// refused and left as it is.
func TestForeignStateRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		bucket string
		key    string
		value  string
		want   string
	}{
		{"newer format", "meta", "version", "2", "is of format version 2, newer than this build's (1)"},
		{"no version", "other", "k", "v", "is not a scribe-server state"},
		{"bad version", "meta", "version", "one", "not a number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName)
			b, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Update(func(tx *bolt.Tx) error {
				bk, err := tx.CreateBucket([]byte(tt.bucket))
				if err != nil {
					return err
				}
				return bk.Put([]byte(tt.key), []byte(tt.value))
			}); err != nil {
				t.Fatal(err)
			}
			b.Close()
			before, _ := os.ReadFile(path)
			if db, err := Open(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
				if err == nil {
					db.Close()
				}
				t.Errorf("Open = %v, want an error saying %q", err, tt.want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Error("Open changed the file")
			}
		})
	}
}

// An empty file (created, never written) is a fresh state.
func TestEmptyFileIsFresh(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Fresh() {
		t.Error("an empty file is not fresh")
	}
}

// Append numbers rows from 1 and keeps the last keep; Put sets a row and
// drops others in one transaction.
func TestAppendAndPut(t *testing.T) {
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, v := range []string{"a", "b", "c", "d"} {
		if err := db.Update(func(tx *Tx) error {
			n, err := tx.Append("log", []byte(v), 2)
			if n != uint64(i+1) {
				t.Errorf("Append %s: row %d, want %d", v, n, i+1)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if got := rows(t, db, "log"); !cmp.Equal(got, []string{"3=c", "4=d"}) {
		t.Errorf("after 4 Appends keeping 2: %q", got)
	}
	if err := db.Put("log", Key(9), []byte("z"), Key(3), Key(4)); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, db, "log"); !cmp.Equal(got, []string{"9=z"}) {
		t.Errorf("after Put dropping 3 and 4: %q", got)
	}
}
