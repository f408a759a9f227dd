package filestore_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/transport"
)

func interrupt(i int) *hitl.Interrupt {
	id := fmt.Sprintf("review_%03d", i)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &hitl.Interrupt{Kind: hitl.KindHITL, Origin: "https://svc.example:443", Case: &hitl.Case{
		SpecVersion: "0.8", CaseID: id, Type: hitl.TypeApproval, Prompt: "Approve? " + strings.Repeat("x", 400),
		ReviewURL: "https://svc.example/review/" + id + "?token=secret-review-token",
		PollURL:   "https://svc.example/reviews/" + id + "/status", DefaultAction: hitl.DefaultSkip,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)}}
}

// realStore writes a store of n interrupts (some deleted again, so the freelist holds pages)
// and returns its bytes.
func realStore(t testing.TB, n int) []byte {
	path := filepath.Join(t.TempDir(), "real.db")
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n + n/4 {
		if err := s.Put(context.Background(), interrupt(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := n; i < n+n/4; i++ {
		if err := s.Delete(context.Background(), interrupt(i).Key()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const pageSize = 4096 // the size of the pages realStore writes (the default on the test machines)

// freelistPage returns the freelist page id in the newest meta of a store file.
func freelistPage(b []byte) int {
	m := func(off int) (txid, freelist uint64) {
		return binary.NativeEndian.Uint64(b[off+16+48:]), binary.NativeEndian.Uint64(b[off+16+32:])
	}
	t0, f0 := m(0)
	t1, f1 := m(pageSize)
	if t1 > t0 {
		return int(f1)
	}
	return int(f0)
}

// damaged returns copies of a real store's bytes damaged as disks and copies damage them.
func damaged(b []byte) map[string][]byte {
	out := map[string][]byte{}
	pages := len(b) / pageSize
	for _, n := range []int{1, 2, 3, 4, 6, pages / 2, pages - 1} {
		out[fmt.Sprintf("truncated to %d pages", n)] = bytes.Clone(b[:n*pageSize])
	}
	out["truncated mid-page"] = bytes.Clone(b[:len(b)-pageSize/2])
	fill := func(name string, page int, v byte) {
		c := bytes.Clone(b)
		for i := page * pageSize; i < (page+1)*pageSize; i++ {
			c[i] = v
		}
		out[name] = c
	}
	fl := freelistPage(b)
	fill("freelist zeroed", fl, 0)
	fill("freelist 0xFF", fl, 0xFF)
	fill("both metas zeroed", 0, 0)
	out["both metas zeroed"] = func() []byte {
		c := out["both metas zeroed"]
		clear(c[pageSize : 2*pageSize])
		return c
	}()
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range []int{2, 3, 4, 5, pages / 2, pages - 2} {
		c := bytes.Clone(b)
		for i := p * pageSize; i < (p+1)*pageSize; i++ {
			c[i] = byte(r.Uint32())
		}
		out[fmt.Sprintf("page %d scrambled", p)] = c
	}
	c := bytes.Clone(b)
	binary.NativeEndian.PutUint64(c[3*pageSize:], 7) // a page that names another
	out["page 3 says it is page 7"] = c
	c = bytes.Clone(b)
	copy(c[2*pageSize:3*pageSize], b[4*pageSize:5*pageSize])
	out["page 4 copied over page 2"] = c
	return out
}

// use runs every call of a store on the file at path and fails the test on an error that is
// neither ErrDamaged nor a record that cannot be read; it returns Open's error.
func use(t *testing.T, path string) error {
	ctx := context.Background()
	s, err := filestore.Open(path)
	if err != nil {
		return err
	}
	ok := func(what string, err error) {
		var rec *hitl.RecordError
		if err != nil && !errors.Is(err, filestore.ErrDamaged) && !errors.As(err, &rec) {
			t.Errorf("%s = %v, want nil or ErrDamaged", what, err)
		}
	}
	_, err = s.List(ctx)
	ok("List", err)
	ok("Put", s.Put(ctx, interrupt(999)))
	ok("Delete", s.Delete(ctx, interrupt(1).Key()))
	_, err = s.List(ctx)
	ok("List after writes", err)
	ok("Close", s.Close())
	return nil
}

// TestDamagedStore: each damaged copy of a 40-interrupt store is refused by Open with
// ErrDamaged naming the file, left byte for byte as it was, or opens and every call works
// (or reports ErrDamaged): never a panic. Salvage copies what is readable into a new store.
func TestDamagedStore(t *testing.T) {
	real := realStore(t, 40)
	refused := 0
	for name, b := range damaged(real) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "hitl.db")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			err := use(t, path)
			if err == nil {
				return
			}
			refused++
			var fe *filestore.Error
			if !errors.Is(err, filestore.ErrDamaged) || !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), "Salvage") {
				t.Fatalf("Open = %v, want an *Error matching ErrDamaged naming %s", err, path)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
				t.Fatal("Open changed the damaged file")
			}
			refusal := err
			n, err := filestore.Salvage(path, filepath.Join(dir, "salvaged.db"))
			if err != nil || n > 50 { // 40 kept and 10 deleted: an older tree may still hold those
				t.Fatalf("Salvage = %d, %v", n, err)
			}
			s, err := filestore.Open(filepath.Join(dir, "salvaged.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, err := s.List(context.Background())
			if len(got) > n || (err == nil && len(got) != n) {
				t.Errorf("the salvaged store lists %d (%v) of %d copied", len(got), err, n)
			}
			t.Logf("refused: %v; salvaged %d", refusal, n)
		})
	}
	if refused < 10 {
		t.Errorf("Open refused %d damaged copies; the truncated ones and the bad freelists at least must be", refused)
	}
}

// TestSalvage: with one leaf page scrambled, Salvage copies every record of the other pages,
// and the copies are the interrupts that were stored.
func TestSalvage(t *testing.T) {
	dir := t.TempDir()
	real := realStore(t, 40)
	path := filepath.Join(dir, "hitl.db")
	c := bytes.Clone(real)
	leaf := -1
	for p := 2; p < len(c)/pageSize; p++ { // the first leaf of records: page header flags 0x02, holding review_
		pg := c[p*pageSize : (p+1)*pageSize]
		if binary.NativeEndian.Uint16(pg[8:]) == 0x02 && bytes.Contains(pg, []byte("review_0")) {
			leaf = p
			break
		}
	}
	if leaf < 0 {
		t.Fatal("no leaf page of records")
	}
	clear(c[leaf*pageSize+16 : (leaf+1)*pageSize])
	binary.NativeEndian.PutUint16(c[leaf*pageSize+10:], 0xFFFF) // 65535 elements that do not fit
	if err := os.WriteFile(path, c, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := filestore.Open(path); !errors.Is(err, filestore.ErrDamaged) {
		t.Fatalf("Open = %v, want ErrDamaged", err)
	}
	to := filepath.Join(dir, "salvaged.db")
	n, err := filestore.Salvage(path, to)
	if err != nil || n == 0 || n >= 40 {
		t.Fatalf("Salvage = %d, %v; want most of the 40", n, err)
	}
	s, err := filestore.Open(to)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.List(context.Background())
	if err != nil || len(got) != n {
		t.Fatalf("salvaged List = %d, %v", len(got), err)
	}
	for _, it := range got {
		var i int
		if _, err := fmt.Sscanf(it.ID(), "review_%d", &i); err != nil || it.Case.PollURL != interrupt(i).Case.PollURL {
			t.Errorf("salvaged %s is not what was stored", it.ID())
		}
	}
	if _, err := filestore.Salvage(path, to); err == nil {
		t.Error("Salvage over an existing file succeeded")
	}
}

// TestDamagedWhileOpen: pages damaged under an open store (a failing disk) make bbolt panic
// inside List; the store answers ErrDamaged naming the file, to that call and every later
// one, Resume included, and writes nothing more.
func TestDamagedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	if err := os.WriteFile(path, realStore(t, 40), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	junk := bytes.Repeat([]byte{0xFF}, pageSize)
	for p := int64(2); p < info.Size()/pageSize; p++ { // every page but the metas
		if _, err := f.WriteAt(junk, p*pageSize); err != nil {
			t.Fatal(err)
		}
	}
	_ = f.Close()
	damaged := func(what string, err error) {
		var fe *filestore.Error
		if !errors.Is(err, filestore.ErrDamaged) || !errors.As(err, &fe) || fe.Path != path {
			t.Errorf("%s = %v, want ErrDamaged naming the file", what, err)
		}
	}
	_, err = s.List(context.Background())
	damaged("List", err)
	damaged("Put", s.Put(context.Background(), interrupt(1)))
	damaged("Delete", s.Delete(context.Background(), interrupt(1).Key()))
	c, _ := hitl.NewClient(hitl.WithStore(s))
	damaged("Resume", c.Resume(context.Background(), func(context.Context, *hitl.Interrupt, *transport.Result) error { return nil }, nil))
	before, _ := os.ReadFile(path)
	_ = s.Put(context.Background(), interrupt(2))
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a store found damaged wrote to its file")
	}
}
