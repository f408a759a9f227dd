package readme

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildFiles builds each whole Go file of the README.md in the current directory — a block
// that starts with "package" — in a module of its own in a temporary directory, as a user's
// module would: it requires the current module (module, its path) with the current go.mod's
// requirements and go.sum, and replaces github.com/hitlkit/hitlkit and each module in also
// (path → directory relative to the current one) by this checkout, offline. A "package main"
// file is vetted; a "package x_test" file is run as a test. It fails t for each that fails,
// when there are fewer than atLeast files, and when the first has maxLines lines or more
// (0: no bound).
func BuildFiles(t *testing.T, module string, also map[string]string, atLeast, maxLines int) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	// The module's requirements, as a user's module has them, with this checkout in place of
	// the released versions.
	var gomod strings.Builder
	inReplace := false
	for _, line := range strings.Split(string(mod), "\n") {
		switch {
		case strings.HasPrefix(line, "module "):
			line = "module example.com/readme"
		case strings.HasPrefix(line, "replace ("):
			inReplace = true
			continue
		case inReplace:
			inReplace = line != ")"
			continue
		case strings.HasPrefix(line, "replace "):
			continue
		}
		gomod.WriteString(line + "\n")
	}
	fmt.Fprintf(&gomod, "require %s v0.1.0\n", module)
	fmt.Fprintf(&gomod, "replace github.com/hitlkit/hitlkit => %s\n", filepath.Join(here, "..", ".."))
	fmt.Fprintf(&gomod, "replace %s => %s\n", module, here)
	for path, dir := range also {
		fmt.Fprintf(&gomod, "replace %s => %s\n", path, filepath.Join(here, dir))
	}

	files := 0
	for _, b := range GoBlocks(f) {
		if !strings.HasPrefix(b.Code, "package ") {
			continue
		}
		files++
		if n := strings.Count(strings.TrimSpace(b.Code), "\n") + 1; files == 1 && maxLines > 0 && n >= maxLines {
			t.Errorf("README.md:%d: the first program has %d lines, want under %d", b.Line, n, maxLines)
		}
		pkg := strings.Fields(strings.SplitN(b.Code, "\n", 2)[0])[1]
		name, args := "main.go", []string{"vet", "."}
		if strings.HasSuffix(pkg, "_test") {
			name, args = "readme_test.go", []string{"test", "-count=1", "."}
		}
		t.Run(fmt.Sprintf("line %d", b.Line), func(t *testing.T) {
			dir := t.TempDir()
			for file, content := range map[string]string{
				"go.mod": gomod.String(),
				"go.sum": string(sum),
				name:     fmt.Sprintf("//line README.md:%d\n%s", b.Line+1, b.Code),
			} {
				if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.CommandContext(t.Context(), "go", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("README.md:%d: go %s: %v\n%s", b.Line, strings.Join(args, " "), err, out)
			}
		})
	}
	if files < atLeast {
		t.Errorf("found %d whole Go files in README.md, want %d or more", files, atLeast)
	}
}
