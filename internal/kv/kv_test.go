package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// store writes a store of n records, some deleted again so that the freelist holds pages.
func store(t testing.TB, n int) []byte {
	path := filepath.Join(t.TempDir(), "s.db")
	d, err := open(path, time.Second, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n + n/4 {
		if err := d.Put(fmt.Appendf(nil, "https://svc.example\nreview_%03d", i), bytes.Repeat([]byte{'x'}, 700)); err != nil {
			t.Fatal(err)
		}
	}
	for i := n; i < n+n/4; i++ {
		if err := d.Delete(fmt.Appendf(nil, "https://svc.example\nreview_%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzOpen feeds damaged copies of a real store file to every call — patched with the
// fuzzer's bytes at an offset, then cut at a length — : Open, Each, Put, Delete, Close and
// Salvage never panic; an error is *Damaged; a file Open refuses is left as it was. Its seeds
// include the worst shapes a page can take: cycles, counts and overflows at their largest.
func FuzzOpen(f *testing.F) {
	real := store(f, 8)
	ps := os.Getpagesize()
	page := func(v byte) []byte { return bytes.Repeat([]byte{v}, ps) }
	f.Add(uint32(0), []byte(nil), uint32(0))
	for _, n := range []int{1, 2, 3, len(real)/ps - 1} {
		f.Add(uint32(0), []byte(nil), uint32(n*ps))
	}
	for p := range len(real) / ps {
		f.Add(uint32(p*ps), page(0), uint32(0))
		f.Add(uint32(p*ps), page(0xFF), uint32(0))
		f.Add(uint32(p*ps+8), []byte{2, 0, 0xFF, 0xFF, 9, 0, 0, 0}, uint32(0)) // flags, count, overflow
		// Worst cases: a branch page whose every element points back at itself (a cycle the
		// walk must see once, not follow); a freelist whose count says "the real count is in
		// the next word" and gives the largest one; a leaf or branch page claiming overflow
		// pages past the end of the file.
		cycle := []byte{branchPage, 0, 255, 0, 0, 0, 0, 0}
		for range 255 {
			cycle = binary.NativeEndian.AppendUint32(cycle, 0)
			cycle = binary.NativeEndian.AppendUint32(cycle, 0)
			cycle = binary.NativeEndian.AppendUint64(cycle, uint64(p))
		}
		f.Add(uint32(p*ps+8), cycle, uint32(0))
		f.Add(uint32(p*ps+8), binary.NativeEndian.AppendUint64([]byte{freelistPage, 0, 0xFF, 0xFF, 0, 0, 0, 0}, ^uint64(0)), uint32(0))
		f.Add(uint32(p*ps+8), []byte{branchPage, 0, 1, 0, 0xFF, 0xFF, 0xFF, 0xFF}, uint32(0))
	}
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, cut uint32) {
		b := bytes.Clone(real)
		if int(at) < len(b) {
			copy(b[at:], patch)
		}
		if cut > 0 && int(cut) < len(b) {
			b = b[:cut]
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "s.db")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		damaged := func(what string, err error) {
			var dmg *Damaged
			if err != nil && !errors.As(err, &dmg) {
				t.Fatalf("%s = %v, want nil or *Damaged", what, err)
			}
		}
		d, err := open(path, time.Second, true)
		if err != nil {
			damaged("Open", err)
			if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
				t.Fatal("Open changed the damaged file")
			}
			damaged("Salvage", Salvage(path, func(k, v []byte) error { return nil }))
			return
		}
		damaged("Each", d.Each(func(k, v []byte) error { return nil }))
		damaged("Put", d.Put([]byte("https://svc.example\nreview_new"), []byte("{}")))
		damaged("Delete", d.Delete([]byte("https://svc.example\nreview_001")))
		damaged("Each", d.Each(func(k, v []byte) error { return nil }))
		damaged("Close", d.Close())
	})
}
