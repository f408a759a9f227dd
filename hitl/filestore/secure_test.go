//go:build unix

package filestore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl/filestore"
)

// TestForeignFileRefused: Open refuses a store file, or a directory holding it, that another
// user owns or that group or others can write (a directory without its sticky bit), and a
// file others can read, with an *Error saying what to change; a file it creates is mode 0600,
// and one of mode 0640 or 0600 opens. A shared directory with its sticky bit (mode 1777, as
// /tmp) holds a store whose file is this user's and closed to others. No refusal advises
// changing a directory's mode: one about the directory names a private one instead.
func TestForeignFileRefused(t *testing.T) {
	const other = 65534 // nobody
	const private = "os.UserConfigDir"
	root := os.Geteuid() == 0
	for _, tt := range []struct {
		name     string
		fileMode os.FileMode // 0: no file yet
		dirMode  os.FileMode
		fileUID  int // -1: this user
		dirUID   int
		fix      string // "": opens
	}{
		{"created", 0, 0o700, -1, -1, ""},
		{"owner only", 0o600, 0o700, -1, -1, ""},
		{"group may read", 0o640, 0o750, -1, -1, ""},
		{"everyone may write", 0o666, 0o700, -1, -1, "chmod go-w"},
		{"group may write", 0o620, 0o700, -1, -1, "chmod go-w"},
		{"others may read", 0o644, 0o700, -1, -1, "chmod 600"},
		{"directory everyone may write", 0o600, 0o777, -1, -1, private},
		{"directory group may write", 0, 0o770, -1, -1, private},
		{"another user's file", 0o600, 0o700, other, -1, "chown"},
		{"another user's directory", 0o600, 0o700, -1, other, private},
		{"sticky directory, created", 0, os.ModeSticky | 0o777, -1, -1, ""},
		{"sticky directory, own file", 0o600, os.ModeSticky | 0o777, -1, -1, ""},
		{"sticky directory, group may write", 0o600, os.ModeSticky | 0o770, -1, -1, ""},
		{"sticky directory, loose file", 0o666, os.ModeSticky | 0o777, -1, -1, "chmod go-w"},
		{"sticky directory, readable file", 0o644, os.ModeSticky | 0o777, -1, -1, "chmod 600"},
		{"sticky directory, another user's file", 0o600, os.ModeSticky | 0o777, other, -1, private},
		{"sticky directory of another user", 0o600, os.ModeSticky | 0o777, -1, other, private},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if (tt.fileUID >= 0 || tt.dirUID >= 0) && !root {
				t.Skip("giving a file to another user needs root")
			}
			dir := filepath.Join(t.TempDir(), "d")
			path := filepath.Join(dir, "hitl.db")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.fileMode != 0 {
				if err := os.WriteFile(path, realStore(t, 2), 0o600); err != nil {
					t.Fatal(err)
				}
				chmod(t, path, tt.fileMode, tt.fileUID)
			}
			chmod(t, dir, tt.dirMode, tt.dirUID)
			s, err := filestore.Open(path)
			if tt.fix == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				if info, err := os.Stat(path); err != nil || (tt.fileMode == 0 && info.Mode().Perm() != 0o600) {
					t.Errorf("created file: %v, %v; want mode 0600", info.Mode(), err)
				}
				return
			}
			var fe *filestore.Error
			if !errors.Is(err, filestore.ErrInsecure) || !errors.As(err, &fe) || !strings.Contains(fe.Fix, tt.fix) {
				t.Fatalf("Open = %v; want ErrInsecure saying %q", err, tt.fix)
			}
			if strings.Contains(fe.Fix, "chmod") && !strings.Contains(fe.Fix, "chmod go-w "+path) && !strings.Contains(fe.Fix, "chmod 600 "+path) {
				t.Errorf("the fix %q would change the directory's mode", fe.Fix)
			}
			if _, err := filestore.Salvage(path, filepath.Join(t.TempDir(), "s.db")); tt.fileMode != 0 && !errors.Is(err, filestore.ErrInsecure) && tt.dirUID < 0 && tt.dirMode == 0o700 {
				t.Errorf("Salvage of an untrusted file = %v", err)
			}
		})
	}
}

// TestSharedDirectoryLinks: in a sticky shared directory, a name another user put at the
// store's path before it was created — a symbolic or a hard link to a file of this user's —
// is refused, and the file it names is left as it was.
func TestSharedDirectoryLinks(t *testing.T) {
	for _, kind := range []string{"symbolic", "hard"} {
		t.Run(kind, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "shared")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			chmod(t, dir, os.ModeSticky|0o777, -1)
			victim := filepath.Join(base, "victim")
			if err := os.WriteFile(victim, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "hitl.db")
			link := os.Symlink
			if kind == "hard" {
				link = os.Link
			}
			if err := link(victim, path); err != nil {
				t.Fatal(err)
			}
			if s, err := filestore.Open(path); !errors.Is(err, filestore.ErrInsecure) {
				if err == nil {
					_ = s.Close()
				}
				t.Fatalf("Open through a %s link = %v; want ErrInsecure", kind, err)
			}
			if info, err := os.Stat(victim); err != nil || info.Size() != 0 {
				t.Errorf("the linked file was written: %v, %v", info.Size(), err)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode, uid int) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(path, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPlantedRecord: another local user who can write the store file plants an interrupt
// whose origin and poll URL are their server; Open refuses the file, so no Resume reads it
// and the agent's credential never goes there.
func TestPlantedRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	it := interrupt(1)
	it.Origin, it.Case.PollURL = "https://evil.example", "https://evil.example/reviews/review_001/status"
	if err := s.Put(context.Background(), it); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if s, err := filestore.Open(path); !errors.Is(err, filestore.ErrInsecure) {
		_ = s.Close()
		t.Fatalf("Open of a file everyone may write = %v; want ErrInsecure", err)
	}
}
