package jsinterop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// The agent process all tests share, or why there is none.
var (
	agent      *peer
	agentError error
)

// TestMain starts the JavaScript agent once, runs the tests, stops it, and checks that no
// goroutine outlives them.
func TestMain(m *testing.M) {
	agent, agentError = startPeer()
	code := m.Run()
	if agent != nil {
		agent.stop()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// inCI reports whether a missing JavaScript peer fails the tests instead of skipping them.
func inCI() bool { return os.Getenv("CI") != "" || os.Getenv("HITLKIT_CI") != "" }

// need returns the running agent, or skips (fails in CI) when node or the agent's packages are
// missing.
func need(t *testing.T) *peer {
	t.Helper()
	if agent == nil {
		if inCI() {
			t.Fatalf("JavaScript agent unavailable: %v", agentError)
		}
		t.Skipf("JavaScript agent unavailable (%v); install Node.js and run npm ci in a2a/jsinterop/agent", agentError)
	}
	return agent
}

// nodeReady returns node's path, or why the JavaScript peers cannot run.
func nodeReady() (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("node not on PATH: %w", err)
	}
	if _, err := os.Stat(filepath.Join("agent", "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		return "", errors.New("agent/node_modules has no @a2a-js/sdk (run npm ci in a2a/jsinterop/agent)")
	}
	return node, nil
}

// peer is the running agent process, on a loopback port of its choosing.
type peer struct {
	url    string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	hc     *http.Client
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 64<<10 {
		return len(p), nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startPeer starts node agent.mjs and reads the URL it serves at, within 30 s.
func startPeer() (*peer, error) {
	node, err := nodeReady()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(node, "agent.mjs")
	cmd.Dir = "agent"
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &peer{cmd: cmd, stdin: stdin, stderr: &syncBuffer{}, hc: &http.Client{Timeout: 30 * time.Second}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case s := <-line:
		var hello struct {
			URL string `json:"url"`
		}
		if json.Unmarshal([]byte(s), &hello) != nil || !strings.HasPrefix(hello.URL, "http://127.0.0.1:") {
			p.stop()
			return nil, fmt.Errorf("agent did not start: %q, stderr %q", s, p.stderr.String())
		}
		p.url = hello.URL
		return p, nil
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, fmt.Errorf("agent did not start within 30 s: stderr %q", p.stderr.String())
	}
}

// stop closes the agent's input, which ends it, and kills it if it is still running 5 s later.
func (p *peer) stop() {
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() {
		_ = p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.hc.CloseIdleConnections()
}

// node returns node's path (the agent runs, so it is there).
func (p *peer) node(t *testing.T) string {
	t.Helper()
	node, err := nodeReady()
	if err != nil {
		t.Fatal(err)
	}
	return node
}

// endpoint is the agent's interface for b.
func (p *peer) endpoint(b a2a.Binding) a2a.Endpoint {
	if b == a2a.JSONRPC10 || b == a2a.JSONRPC03 {
		return a2a.Endpoint{URL: p.url + "/rpc", Binding: b}
	}
	return a2a.Endpoint{URL: p.url + "/rest", Binding: b}
}

// admin calls one of the agent's test controls.
func (p *peer) admin(t *testing.T, method, path string, out any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, p.url+"/admin/"+path, nil)
	resp, err := p.hc.Do(req)
	if err != nil {
		t.Fatalf("admin %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("admin %s: %s", path, resp.Status)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("admin %s: %v", path, err)
		}
	}
}

// request is one request the agent answered.
type request struct {
	Path    string `json:"path"`
	Method  string `json:"method"`
	Version string `json:"version"`
	Status  int    `json:"status"`
}

func (p *peer) requests(t *testing.T) []request {
	var rs []request
	p.admin(t, http.MethodGet, "requests", &rs)
	return rs
}

// until polls cond every 20 ms until it holds or d has passed.
func until(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(d)
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("%s: not within %v", what, d)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ctx bounds one test's calls.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

var bindings = []a2a.Binding{a2a.JSONRPC10, a2a.REST10, a2a.JSONRPC03, a2a.REST03}

func newClient(t *testing.T, opts ...transport.Option) *a2a.Client {
	t.Helper()
	c, err := a2a.NewClient(append([]transport.Option{transport.WithPollInterval(time.Second), transport.WithAllowPrivateAddresses()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
