package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// shellLangs are the fence languages whose lines are commands.
var shellLangs = map[string]bool{"sh": true, "shell": true, "bash": true, "console": true}

// commandWords are the first words of a line that make it a command, in a fence of any
// language but Go.
var commandWords = map[string]bool{"go": true, "bash": true, "cd": true, "npm": true}

// byHand lists the fenced blocks of commands that no test can check and CI does not run, by
// file and the block's first line, with why each is shown.
var byHand = map[string]string{}

// goTestFlags are the go test flags (and test binary flags) a command may pass; any other
// flag must be one a test file of the package defines.
var goTestFlags = map[string]bool{
	"race": true, "count": true, "run": true, "bench": true, "benchtime": true, "benchmem": true,
	"fuzz": true, "fuzztime": true, "v": true, "trace": true, "timeout": true, "cpu": true,
	"short": true, "json": true, "cover": true, "skip": true,
}

var flagDef = regexp.MustCompile(`flag\.[A-Za-z0-9]+\(\s*"([^"]+)"`)

// TestShellCommands: every command a Markdown file shows in a fence runs what exists: the
// directories it changes into, the packages and programs it names, the tests, benchmarks and
// fuzz targets its patterns select, the flags it passes, the scripts it runs; npm ci only
// where a lockfile is; go get only of a module of this repository. A block of commands that
// no test can check is listed in byHand with its reason.
func TestShellCommands(t *testing.T) {
	root, docs := documents(t)
	modules := modulePaths(t, root)
	checked := 0
	for _, d := range docs {
		for _, b := range d.blocks {
			if b.lang == "go" || len(b.lines) == 0 {
				continue
			}
			if _, ok := byHand[d.name+" "+strings.TrimSpace(b.lines[0])]; ok {
				continue
			}
			for i, line := range b.lines {
				where := d.name + ":" + strconv.Itoa(b.line+1+i)
				words := strings.Fields(stripComment(line))
				if len(words) == 0 {
					continue
				}
				first := strings.TrimPrefix(words[0], "(")
				for strings.Contains(first, "=") && len(words) > 1 { // VAR=value before the command
					words = words[1:]
					first = strings.TrimPrefix(words[0], "(")
				}
				if !shellLangs[b.lang] && !commandWords[first] {
					continue // output, a diagram: not a command
				}
				checked++
				checkCommandLine(t, root, where, line, modules)
			}
		}
	}
	if checked == 0 {
		t.Error("no command found: the check found nothing to check")
	}
}

// stripComment drops a trailing "# comment" (a # after a space, outside quotes).
func stripComment(line string) string {
	inQuote := rune(0)
	for i, r := range line {
		switch {
		case inQuote != 0 && r == inQuote:
			inQuote = 0
		case inQuote == 0 && (r == '\'' || r == '"'):
			inQuote = r
		case inQuote == 0 && r == '#' && (i == 0 || line[i-1] == ' '):
			return line[:i]
		}
	}
	return line
}

// checkCommandLine checks each command of a line ("a && b", "(cd x && c)"), in the directory
// the line's cd commands lead to, starting at the repository's root.
func checkCommandLine(t *testing.T, root, where, line string, modules map[string]bool) {
	t.Helper()
	dir := root
	var saved []string // the directories to return to as each subshell ends
	for _, cmd := range strings.Split(stripComment(line), "&&") {
		cmd = strings.TrimSpace(cmd)
		for strings.HasPrefix(cmd, "(") {
			saved = append(saved, dir)
			cmd = strings.TrimSpace(cmd[1:])
		}
		closing := 0
		for strings.HasSuffix(cmd, ")") {
			closing++
			cmd = strings.TrimSpace(cmd[:len(cmd)-1])
		}
		checkCommand(t, root, where, cmd, &dir, modules)
		for ; closing > 0 && len(saved) > 0; closing-- {
			dir, saved = saved[len(saved)-1], saved[:len(saved)-1]
		}
	}
}

// checkCommand checks one command run in *dir, moving *dir on a cd.
func checkCommand(t *testing.T, root, where, cmd string, dir *string, modules map[string]bool) {
	t.Helper()
	{
		words := splitWords(cmd)
		for len(words) > 0 && strings.Contains(words[0], "=") {
			words = words[1:]
		}
		if len(words) == 0 {
			return
		}
		switch {
		case words[0] == "cd" && len(words) == 2:
			next := filepath.Join(*dir, words[1])
			if st, err := os.Stat(next); err != nil || !st.IsDir() {
				t.Errorf("%s: cd %s: no such directory", where, words[1])
				return
			}
			*dir = next
		case words[0] == "bash" && len(words) >= 2:
			if _, err := os.Stat(filepath.Join(*dir, words[1])); err != nil {
				t.Errorf("%s: bash %s: no such script", where, words[1])
			}
		case words[0] == "npm" && len(words) >= 2 && words[1] == "ci":
			if _, err := os.Stat(filepath.Join(*dir, "package-lock.json")); err != nil {
				t.Errorf("%s: npm ci where no package-lock.json is (.ci/run runs npm ci where one is)", where)
			}
		case words[0] == "go" && len(words) >= 2 && words[1] == "get":
			for _, w := range words[2:] {
				path, _, _ := strings.Cut(w, "@")
				if !modules[path] {
					t.Errorf("%s: go get %s: not a module of this repository", where, w)
				}
			}
		case words[0] == "go" && len(words) >= 2 && words[1] == "test":
			checkGoTest(t, *dir, where, words[2:])
		case words[0] == "go" && len(words) >= 2 && words[1] == "run":
			checkGoRun(t, *dir, where, words[2:])
		default:
			t.Errorf("%s: %q is not a command CI runs or this test checks (go test, go run, go get, cd, bash, npm ci); list its block in byHand with the reason it is shown", where, strings.TrimSpace(cmd))
		}
	}
}

// splitWords splits a command into words, taking a quoted word whole, without its quotes.
func splitWords(cmd string) []string {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range cmd {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// packageDirs resolves package patterns (./..., ./hitl/, ./internal/sse/) against dir.
func packageDirs(t *testing.T, dir, where string, args []string) []string {
	t.Helper()
	var out []string
	for _, a := range args {
		if a == "…" || a == "..." {
			continue
		}
		if !strings.HasPrefix(a, "./") && a != "." {
			t.Errorf("%s: package %q: show a relative package path", where, a)
			continue
		}
		p := filepath.Join(dir, strings.TrimSuffix(a, "..."))
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			t.Errorf("%s: package %s: no such directory", where, a)
			continue
		}
		out = append(out, p)
	}
	return out
}

// flagsOf returns the flags the Go files of dir define (with flag.X("name", …)).
func flagsOf(t *testing.T, dir string, tests bool) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") != tests {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range flagDef.FindAllStringSubmatch(string(raw), -1) {
			out[m[1]] = true
		}
	}
	return out
}

func checkGoTest(t *testing.T, dir, where string, args []string) {
	t.Helper()
	patterns := map[string]string{}
	var pkgs, own []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			pkgs = append(pkgs, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "race", "benchmem", "v", "short", "json", "cover":
		default:
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
		}
		if name == "run" || name == "bench" || name == "fuzz" {
			patterns[name] = value
		}
		if !goTestFlags[name] {
			own = append(own, name)
		}
	}
	dirs := packageDirs(t, dir, where, pkgs)
	if len(dirs) == 0 {
		t.Errorf("%s: go test names no package", where)
		return
	}
	funcs := map[string]bool{}
	flags := map[string]bool{}
	for i, d := range dirs {
		if strings.HasSuffix(pkgs[i], "...") {
			for f := range testFuncs(t, d) {
				funcs[f] = true
			}
		} else {
			for f := range testFuncsIn(t, d) {
				funcs[f] = true
			}
		}
		for f := range flagsOf(t, d, true) {
			flags[f] = true
		}
	}
	for _, f := range own {
		if !flags[f] {
			t.Errorf("%s: go test -%s: neither a go test flag nor one the package's tests define", where, f)
		}
	}
	prefixes := map[string][]string{"run": {"Test", "Fuzz", "Example"}, "bench": {"Benchmark"}, "fuzz": {"Fuzz"}}
	for flag, pattern := range patterns {
		if pattern == "^$" {
			continue
		}
		top := strings.Split(pattern, "/")[0]
		re, err := regexp.Compile(top)
		if err != nil {
			t.Errorf("%s: -%s %q: %v", where, flag, pattern, err)
			continue
		}
		found := false
		for f := range funcs {
			for _, p := range prefixes[flag] {
				if strings.HasPrefix(f, p) && re.MatchString(f) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: -%s %q selects nothing in %v", where, flag, pattern, pkgs)
		}
	}
}

// testFuncsIn returns the test functions of dir's own _test.go files.
func testFuncsIn(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(raw), -1) {
			out[m[1]] = true
		}
	}
	return out
}

func checkGoRun(t *testing.T, dir, where string, args []string) {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: go run names no program", where)
		return
	}
	dirs := packageDirs(t, dir, where, args[:1])
	if len(dirs) == 0 {
		return
	}
	flags := flagsOf(t, dirs[0], false)
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !flags[name] {
			t.Errorf("%s: go run %s -%s: the program defines no such flag", where, args[0], name)
		}
	}
}

// modulePaths returns the module path of every go.mod of the repository.
func modulePaths(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(raw), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
					out[f[1]] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
