package tsinterop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// peerTimeout bounds each Node.js process a test starts.
const peerTimeout = 60 * time.Second

// needNode skips the test when Node.js or the packages `npm ci` installs here are missing;
// under CI (HITLKIT_CI set) they must be there.
func needNode(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat("node_modules/@modelcontextprotocol/sdk/package.json")
	}
	if err == nil {
		_, err = os.Stat("node_modules/@modelcontextprotocol/client/package.json")
	}
	if err != nil {
		if os.Getenv("HITLKIT_CI") != "" {
			t.Fatalf("the TypeScript peers need Node.js and `npm ci` in %s: %v", mustGetwd(t), err)
		}
		t.Skipf("skipped: the TypeScript peers need Node.js and `npm ci` in this directory (%v)", err)
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// syncBuffer is a bytes.Buffer safe for a process writing while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// peer is a Node.js process: its stdin and stdout for the test, its stderr kept.
type peer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *syncBuffer
	done   chan error
}

// startPeer runs `node args...` here, killed after peerTimeout or when the test ends.
func startPeer(t *testing.T, args ...string) *peer {
	t.Helper()
	needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.WaitDelay = 5 * time.Second
	p := &peer{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait(); cancel() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("node %s stderr:\n%s", strings.Join(args, " "), p.stderr.String())
		}
	})
	return p
}

// wait waits for the process to end by itself.
func (p *peer) wait(t *testing.T) {
	t.Helper()
	if err := <-p.done; err != nil {
		t.Fatalf("node: %v\n%s", err, p.stderr.String())
	}
	p.done <- nil // for the cleanup
}

// listen reads the "LISTEN <url>" line a peer server prints.
func (p *peer) listen(t *testing.T) string {
	t.Helper()
	line, err := bufio.NewReader(p.stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "LISTEN ")
	if err != nil || !ok {
		t.Fatalf("the server printed %q, %v", line, err)
	}
	return url
}

// events are the "EVENT <json>" lines the client script wrote to stderr.
func (p *peer) events(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "EVENT "); ok {
			var e map[string]any
			if err := json.Unmarshal([]byte(rest), &e); err != nil {
				t.Fatalf("event %q: %v", rest, err)
			}
			out = append(out, e)
		}
	}
	return out
}

// event is the first event with key, and its value.
func event(events []map[string]any, key string) (any, bool) {
	for _, e := range events {
		if v, ok := e[key]; ok {
			return v, true
		}
	}
	return nil, false
}
