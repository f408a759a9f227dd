package filestore_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
)

// TestNilStore: every method of a nil *Store (the one Open returns with an error) returns an
// error saying the store is nil and to check filestore.Open's error; none panics.
func TestNilStore(t *testing.T) {
	s, err := filestore.Open(filepath.Join(t.TempDir(), "nope", "hitl.db"))
	if err == nil || s != nil {
		t.Fatalf("Open = %v, %v; want a nil Store and an error", s, err)
	}
	var st hitl.Store = s
	ctx := context.Background()
	it := &hitl.Interrupt{}
	_, listErr := st.List(ctx)
	for name, err := range map[string]error{
		"Put":    st.Put(ctx, it),
		"Delete": st.Delete(ctx, hitl.StoreKey{Origin: "https://a", ID: "b"}),
		"List":   listErr,
		"Close":  s.Close(),
	} {
		if err == nil || !strings.Contains(err.Error(), "nil") || !strings.Contains(err.Error(), "filestore.Open's error") {
			t.Errorf("%s on a nil *Store = %v, want an error saying the store is nil and to check filestore.Open's error", name, err)
		}
	}
}

// TestZeroStore: the methods of a Store not made by Open return an error saying to use the
// one Open returns; none panics.
func TestZeroStore(t *testing.T) {
	s := &filestore.Store{}
	ctx := context.Background()
	_, listErr := s.List(ctx)
	for name, err := range map[string]error{
		"Put":    s.Put(ctx, &hitl.Interrupt{}),
		"Delete": s.Delete(ctx, hitl.StoreKey{}),
		"List":   listErr,
		"Close":  s.Close(),
	} {
		if err == nil || !strings.Contains(err.Error(), "not made by filestore.Open") {
			t.Errorf("%s on a zero Store = %v, want an error saying to use the Store Open returns", name, err)
		}
	}
}
