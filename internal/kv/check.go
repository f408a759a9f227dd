package kv

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// The bbolt 1.4 file format (format version 2), as far as reading it needs: every page
// starts with a 16-byte header (id, flags, element count, overflow pages); two meta pages;
// branch and leaf pages of 16-byte elements; a freelist page of page ids. bbolt trusts these
// bytes and panics or faults on bad ones, so a file is walked here, read through ReadAt
// with every offset checked, before bbolt is given it.
const (
	pageHeader   = 16
	elemSize     = 16
	branchPage   = 0x01
	leafPage     = 0x02
	metaPage     = 0x04
	freelistPage = 0x10
	bucketLeaf   = 0x01
	boltMagic    = 0xED0CDAED
	boltVersion  = 2
	metaSize     = 64 // magic … checksum
	noFreelist   = ^uint64(0)
	maxDepth     = 64
)

var ne = binary.NativeEndian // bbolt writes its structs in the machine's byte order

type meta struct {
	pageSize       int64
	root, freelist uint64
	pgid, txid     uint64
}

// readMeta reads the meta at offset off; ok is false when its magic, version or checksum is
// wrong.
func readMeta(r io.ReaderAt, off int64) (m meta, ok bool) {
	b := make([]byte, pageHeader+metaSize)
	if _, err := r.ReadAt(b, off); err != nil {
		return m, false
	}
	b = b[pageHeader:]
	h := fnv.New64a()
	_, _ = h.Write(b[:56])
	if ne.Uint32(b[0:]) != boltMagic || ne.Uint32(b[4:]) != boltVersion || ne.Uint64(b[56:]) != h.Sum64() {
		return m, false
	}
	return meta{pageSize: int64(ne.Uint32(b[8:])), root: ne.Uint64(b[16:]), freelist: ne.Uint64(b[32:]),
		pgid: ne.Uint64(b[40:]), txid: ne.Uint64(b[48:])}, true
}

// metas returns the file's valid metas, newest first, as bbolt chooses between them.
func metas(r io.ReaderAt) []meta {
	m0, ok0 := readMeta(r, 0)
	second := int64(os.Getpagesize())
	if ok0 {
		second = m0.pageSize
	}
	m1, ok1 := readMeta(r, second)
	switch {
	case ok0 && ok1 && m1.txid > m0.txid:
		return []meta{m1, m0}
	case ok0 && ok1:
		return []meta{m0, m1}
	case ok0:
		return []meta{m0}
	case ok1:
		return []meta{m1}
	}
	return nil
}

// walker reads the pages of one meta's tree. In strict mode the first fault is returned; in
// lenient mode (salvage) a bad page is skipped and the walk goes on.
type walker struct {
	r       io.ReaderAt
	size    int64
	m       meta
	lenient bool
	skipped int // pages the lenient walk could not read
	reached map[uint64]bool
	record  func(bucket, key, value []byte) // each key–value pair of a top-level bucket
}

// page reads page id with its overflow pages.
func (w *walker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.m.pgid {
		return nil, fmt.Errorf("page %d is outside the file's %d pages", id, w.m.pgid)
	}
	psz := w.m.pageSize
	first := make([]byte, psz)
	if _, err := w.r.ReadAt(first, int64(id)*psz); err != nil {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	if got := ne.Uint64(first); got != id {
		return nil, fmt.Errorf("page %d identifies itself as page %d", id, got)
	}
	over := uint64(ne.Uint32(first[12:]))
	if id+over >= w.m.pgid || int64(id+over+1)*psz > w.size {
		return nil, fmt.Errorf("page %d and its %d overflow pages run past the file's end", id, over)
	}
	for i := id; i <= id+over; i++ {
		if w.reached[i] {
			return nil, fmt.Errorf("page %d is reached twice", i)
		}
		w.reached[i] = true
	}
	if over == 0 {
		return first, nil
	}
	all := make([]byte, int64(over+1)*psz)
	if _, err := w.r.ReadAt(all, int64(id)*psz); err != nil {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	return all, nil
}

// where says which tree a page belongs to: nested 0 is the root tree whose keys are the
// top-level buckets; nested 1 is a top-level bucket, named bucket, whose keys are records.
type where struct {
	bucket []byte
	nested int
}

// tree walks the B+tree rooted at page id.
func (w *walker) tree(id uint64, at where, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("page %d: the tree is deeper than %d", id, maxDepth)
	}
	p, err := w.page(id)
	if err != nil {
		return err
	}
	return w.node(p, id, at, depth)
}

// fail reports err in strict mode and counts it in lenient mode.
func (w *walker) fail(err error) error {
	if w.lenient {
		w.skipped++
		return nil
	}
	return err
}

func (w *walker) node(p []byte, id uint64, at where, depth int) error {
	flags, count := ne.Uint16(p[8:]), int(ne.Uint16(p[10:]))
	if pageHeader+count*elemSize > len(p) {
		return fmt.Errorf("page %d: %d elements do not fit", id, count)
	}
	switch flags {
	case branchPage:
		if count == 0 {
			return fmt.Errorf("page %d: an empty branch", id)
		}
		for i := range count {
			e := p[pageHeader+i*elemSize:]
			off := uint64(pageHeader+i*elemSize) + uint64(ne.Uint32(e)) + uint64(ne.Uint32(e[4:]))
			if off > uint64(len(p)) {
				return fmt.Errorf("page %d: key %d runs past the page", id, i)
			}
			if err := w.tree(ne.Uint64(e[8:]), at, depth+1); err != nil {
				if err := w.fail(err); err != nil {
					return err
				}
			}
		}
		return nil
	case leafPage:
		for i := range count {
			e := p[pageHeader+i*elemSize:]
			start := uint64(pageHeader+i*elemSize) + uint64(ne.Uint32(e[4:]))
			ksize, vsize := uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
			if start+ksize+vsize > uint64(len(p)) {
				return fmt.Errorf("page %d: element %d runs past the page", id, i)
			}
			key, value := p[start:start+ksize], p[start+ksize:start+ksize+vsize]
			if ne.Uint32(e)&bucketLeaf == 0 {
				if at.nested == 1 && w.record != nil {
					w.record(at.bucket, key, value)
				}
				continue
			}
			if err := w.bucket(id, key, value, where{bucket: key, nested: at.nested + 1}, depth); err != nil {
				if err := w.fail(err); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return fmt.Errorf("page %d: neither a branch nor a leaf (flags %#x)", id, flags)
}

// bucket walks the bucket named key whose header is value: a root page, or an inline page
// inside value.
func (w *walker) bucket(id uint64, key, value []byte, at where, depth int) error {
	if len(value) < 16 {
		return fmt.Errorf("page %d: bucket %q has a short header", id, key)
	}
	if root := ne.Uint64(value); root != 0 {
		return w.tree(root, at, depth+1)
	}
	inline := value[16:]
	if len(inline) < pageHeader || ne.Uint16(inline[8:]) != leafPage {
		return fmt.Errorf("page %d: bucket %q has a bad inline page", id, key)
	}
	return w.node(inline, id, at, depth+1)
}

// freelist checks the freelist page: in the file, and no page both free and in use.
func (w *walker) freelist() error {
	if w.m.freelist == noFreelist {
		return nil
	}
	p, err := w.page(w.m.freelist)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if ne.Uint16(p[8:]) != freelistPage {
		return fmt.Errorf("freelist: page %d is not a freelist (flags %#x)", w.m.freelist, ne.Uint16(p[8:]))
	}
	start, count := uint64(pageHeader), uint64(ne.Uint16(p[10:]))
	if count == 0xFFFF {
		count = ne.Uint64(p[pageHeader:])
		start += 8
	}
	if count > uint64(len(p)) || start+count*8 > uint64(len(p)) {
		return fmt.Errorf("freelist: %d ids do not fit page %d", count, w.m.freelist)
	}
	seen := make(map[uint64]bool, count)
	for i := range count {
		id := ne.Uint64(p[start+i*8:])
		switch {
		case id < 2 || id >= w.m.pgid:
			return fmt.Errorf("freelist: page %d is outside the file's %d pages", id, w.m.pgid)
		case seen[id]:
			return fmt.Errorf("freelist: page %d is freed twice", id)
		case w.reached[id]:
			return fmt.Errorf("freelist: page %d is free and in use", id)
		}
		seen[id] = true
	}
	return nil
}

// check walks the file bbolt will read: its newest valid meta, every page of its tree and
// its freelist. It returns why the file is damaged, or nil.
func check(r io.ReaderAt, size int64) error {
	ms := metas(r)
	if len(ms) == 0 {
		return fmt.Errorf("neither meta page is valid")
	}
	m := ms[0]
	switch {
	case m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0:
		return fmt.Errorf("page size %d", m.pageSize)
	case m.pgid < 2 || m.pgid > uint64(size/m.pageSize):
		return fmt.Errorf("the meta counts %d pages; the file holds %d", m.pgid, size/m.pageSize)
	}
	w := &walker{r: r, size: size, m: m, reached: map[uint64]bool{0: true, 1: true}}
	if err := w.tree(m.root, where{}, 0); err != nil {
		return err
	}
	return w.freelist()
}
