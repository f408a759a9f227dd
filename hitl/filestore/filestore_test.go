package filestore_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestLocked: a second Open of a file this process holds is ErrLocked at once, saying to
// share the Store; after Close the file opens again; a second process opening it waits for
// the lock and gets ErrLocked naming the file and what to do, not a shared, corrupting write.
func TestLocked(t *testing.T) {
	if path := os.Getenv("FILESTORE_OPEN"); path != "" { // the second process
		_, err := filestore.Open(path)
		fmt.Print(errors.Is(err, filestore.ErrLocked), " ", err)
		return
	}
	path := filepath.Join(t.TempDir(), "open.db")
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, again := range []string{filepath.Join(filepath.Dir(path), ".", "open.db"), link} {
		if _, err := filestore.Open(again); !errors.Is(err, filestore.ErrLocked) || !strings.Contains(err.Error(), "this process has the store file open already") {
			t.Errorf("second open in this process as %s = %v, want ErrLocked saying so", again, err)
		}
	}
	if testing.Short() {
		t.Skip("waits 5 s for the lock")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLocked$")
	cmd.Env = append(os.Environ(), "FILESTORE_OPEN="+path)
	out, err := cmd.Output()
	if err != nil || !strings.HasPrefix(string(out), "true ") || !strings.Contains(string(out), path) || !strings.Contains(string(out), "another process") || !strings.Contains(string(out), "stop the other one") {
		t.Errorf("second process's open = %q, %v; want ErrLocked naming the file and what to do", out, err)
	}
}

// TestClosed: a Store's methods after Close say it is closed and how to open it again; Close
// twice is no error, and the file opens again.
func TestClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "closed.db")
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	it := &hitl.Interrupt{Kind: hitl.KindHITL, Case: &hitl.Case{CaseID: "review_1", PollURL: "https://svc.example/p"}}
	for name, err := range map[string]error{
		"Put":    s.Put(t.Context(), it),
		"Delete": s.Delete(t.Context(), it.Key()),
		"List":   func() error { _, err := s.List(t.Context()); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "closed") || !strings.Contains(err.Error(), "filestore.Open") {
			t.Errorf("%s after Close = %v, want an error saying the store is closed", name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	again, err := filestore.Open(path)
	if err != nil {
		t.Fatalf("Open after Close = %v", err)
	}
	_ = again.Close()
}

// TestHitlLinksNoBbolt: the hitl package does not depend on bbolt; only this one does.
func TestHitlLinksNoBbolt(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "list", "-deps", "github.com/hitlkit/hitlkit/hitl").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "bbolt") {
		t.Errorf("hitl depends on bbolt:\n%s", out)
	}
}
