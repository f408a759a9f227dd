package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	modulePathWord = regexp.MustCompile(`\b(?:github\.com|golang\.org|go\.[a-z]+\.io|go\.uber\.org|google\.golang\.org)/[A-Za-z0-9._/-]*[A-Za-z0-9]`)
	versionWord    = regexp.MustCompile(`\bv[0-9]+\.[0-9]+\.[0-9]+\b`)
)

// directRequirements returns the root go.mod's direct requirements, path to version.
func directRequirements(t *testing.T, root string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	inBlock := false
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
			continue
		case line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		if strings.Contains(line, "// indirect") {
			continue
		}
		if f := strings.Fields(line); len(f) >= 2 {
			out[f[0]] = f[1]
		}
	}
	return out
}

// TestDependenciesListed: package transport's documentation, "Dependencies", lists every
// direct requirement of the core module's go.mod at the version go.mod pins, and no module
// go.mod does not require, so the list a reader checks the module's dependencies against is
// the one the build uses.
func TestDependenciesListed(t *testing.T) {
	root := Root(t)
	req := directRequirements(t, root)
	if len(req) < 5 {
		t.Fatalf("found %d direct requirements in go.mod, want at least 5: the check read too little", len(req))
	}
	raw, err := os.ReadFile(filepath.Join(root, "transport", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	var items []string // the list items of the Dependencies section, one string each
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		text, ok := strings.CutPrefix(line, "//")
		if !ok {
			break
		}
		if h, ok := strings.CutPrefix(text, " # "); ok {
			in = h == "Dependencies"
			continue
		}
		switch {
		case !in:
		case strings.HasPrefix(text, "   - "):
			items = append(items, strings.TrimPrefix(text, "   - "))
		case strings.HasPrefix(text, "     ") && len(items) > 0:
			items[len(items)-1] += " " + strings.TrimSpace(text)
		}
	}
	if len(items) == 0 {
		t.Fatal(`transport/doc.go has no list under "# Dependencies"`)
	}
	listed := map[string]bool{}
	for _, item := range items {
		versions := versionWord.FindAllString(item, -1)
		for _, path := range modulePathWord.FindAllString(item, -1) {
			listed[path] = true
			want, ok := req[path]
			switch {
			case !ok:
				t.Errorf("transport/doc.go, Dependencies: %s is listed, but go.mod does not require it directly: take it out", path)
			case !slices.Contains(versions, want):
				t.Errorf("transport/doc.go, Dependencies: %s is listed with %v, go.mod pins %s", path, versions, want)
			}
		}
	}
	for path, v := range req {
		if !listed[path] {
			t.Errorf("transport/doc.go, Dependencies: go.mod requires %s %s, which the list does not name: add it, with what it is for", path, v)
		}
	}
}
