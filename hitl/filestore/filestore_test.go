package filestore_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl/filestore"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestLocked: a second process opening a store file another holds gets
// ErrLocked, not a shared, corrupting write.
func TestLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "open.db")
	s, err := filestore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if testing.Short() {
		t.Skip("waits 5 s for the lock")
	}
	if _, err := filestore.Open(path); !errors.Is(err, filestore.ErrLocked) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "stop the other one") {
		t.Errorf("second open = %v, want ErrLocked naming the file and what to do", err)
	}
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
