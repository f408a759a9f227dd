package filestore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hitlkit/hitlkit/hitl/filestore"
)

// A store file that others can read is refused with what to change; after the change it
// opens, and a damaged one is salvaged into a new file.
func Example() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hitl.db")

	s, err := filestore.Open(path) // created mode 0600
	if err != nil {
		fmt.Println(err) // s is nil: check the error before using it
		return
	}
	_ = s.Put(context.Background(), interrupt(1))
	_ = s.Close()

	_ = os.Chmod(path, 0o644)
	_, err = filestore.Open(path)
	var fe *filestore.Error
	if errors.Is(err, filestore.ErrInsecure) && errors.As(err, &fe) {
		fmt.Println("refused:", fe.Fix == "chmod 600 "+path)
	}
	_ = os.Chmod(path, 0o600)

	s, err = filestore.Open(path)
	if errors.Is(err, filestore.ErrDamaged) {
		n, err := filestore.Salvage(path, path+".salvaged") // then open the new file
		fmt.Println(n, err)
		return
	}
	defer s.Close()
	open, _ := s.List(context.Background())
	fmt.Println(len(open), open[0].ID())
	// Output:
	// refused: true
	// 1 review_001
}
