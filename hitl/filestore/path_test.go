package filestore_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl/filestore"
)

// TestOpenDirectory: Open on a path that is a directory (or a link to one) is an *Error
// matching ErrBadPath that says the path is a directory and names a file path inside it; it
// speaks of no chmod, and creates nothing in the directory.
func TestOpenDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, dir + "/", link} {
		s, err := filestore.Open(path)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%s) of a directory succeeded", path)
		}
		var fe *filestore.Error
		if !errors.Is(err, filestore.ErrBadPath) || !errors.As(err, &fe) {
			t.Fatalf("Open(%s) = %v, want an *Error matching ErrBadPath", path, err)
		}
		if errors.Is(err, filestore.ErrInsecure) || strings.Contains(err.Error(), "chmod") || strings.Contains(err.Error(), "the file "+path) {
			t.Errorf("Open(%s) = %v: calls the directory a file or advises chmod", path, err)
		}
		if !strings.Contains(fe.Reason, "is a directory") || !strings.Contains(fe.Fix, filepath.Join(path, "hitl.db")) {
			t.Errorf("Open(%s) = %v, want it to say it is a directory and name %s", path, err, filepath.Join(path, "hitl.db"))
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("directory after Open: %v, %v; want it empty", entries, err)
	}
}

// TestOpenMissingDirectory: Open on a path whose directory does not exist is an *Error
// matching ErrBadPath and fs.ErrNotExist that names the directory and says how to create a
// private one; it creates no directory.
func TestOpenMissingDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "nope", "sub")
	path := filepath.Join(dir, "hitl.db")
	s, err := filestore.Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open in a missing directory succeeded")
	}
	var fe *filestore.Error
	if !errors.Is(err, filestore.ErrBadPath) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &fe) {
		t.Fatalf("Open = %v, want an *Error matching ErrBadPath and fs.ErrNotExist", err)
	}
	if !strings.Contains(fe.Reason, "the directory "+dir+" does not exist") ||
		!strings.Contains(fe.Fix, "mkdir -m 700 -p "+dir) || !strings.Contains(fe.Fix, "os.MkdirAll") {
		t.Errorf("Open = %v, want it to name the missing directory and how to create it", err)
	}
	if _, err := os.Stat(filepath.Join(root, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open created the directory: %v", err)
	}
}
