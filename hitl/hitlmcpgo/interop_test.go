package hitlmcpgo_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/hitl/hitlmcpgo"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	hitltransport "github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var secret = []byte("a-secret-of-at-least-thirty-two-bytes!")

// backend is the fake HITL service behind a delete_file tool; deleted counts the deletions.
type backend struct {
	svc     *hitltest.Server
	client  *hitl.Client
	body    string // the backend request's body; "" for {"delete":…}
	deleted atomic.Int32
}

func newBackend(t *testing.T) *backend {
	t.Helper()
	svc := hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second))
	c, err := hitl.NewClient(hitltransport.WithHTTPClient(svc.Client()), hitltransport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	return &backend{svc: svc, client: c}
}

func (b *backend) request(ctx context.Context) (*http.Request, error) {
	body := b.body
	if body == "" {
		body = `{"delete":"/tmp/report.txt"}`
	}
	return http.NewRequestWithContext(ctx, http.MethodPost, b.svc.URL+"/actions/approval", strings.NewReader(body))
}

// outcome is the tool's words for r; it deletes on an approval only.
func (b *backend) outcome(r *hitltransport.Result) string {
	if r.Approved() {
		b.deleted.Add(1)
		return "deleted"
	}
	return "not deleted: " + string(r.Status) + " " + r.Action
}

// goTool is the hitlmcpgo (mcp-go) tool over b.
func (b *backend) goTool(check time.Duration) *hitlmcpgo.Tool {
	return &hitlmcpgo.Tool{Client: b.client, Secret: secret, Check: check,
		Call: func(ctx context.Context, _ mcp.CallToolRequest) (*http.Request, error) { return b.request(ctx) },
		Result: func(_ context.Context, _ *http.Response, r *hitltransport.Result) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(b.outcome(r)), nil
		}}
}

// sdkTool is the hitlmcp (go-sdk) tool over b.
func (b *backend) sdkTool(check time.Duration) *hitlmcp.Tool {
	return &hitlmcp.Tool{Client: b.client, Secret: secret, Check: check,
		Call: func(ctx context.Context, _ *gomcp.CallToolRequest) (*http.Request, error) { return b.request(ctx) },
		Result: func(_ context.Context, _ *http.Response, r *hitltransport.Result) (*gomcp.CallToolResult, error) {
			return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: b.outcome(r)}}}, nil
		}}
}

// pipes are two in-memory byte streams: client to server and server to client.
type pipes struct {
	cr, sr *io.PipeReader
	cw, sw *io.PipeWriter
}

func newPipes(t *testing.T) *pipes {
	p := &pipes{}
	p.sr, p.cw = io.Pipe()
	p.cr, p.sw = io.Pipe()
	t.Cleanup(func() { _ = p.cw.Close(); _ = p.sw.Close(); _ = p.cr.Close(); _ = p.sr.Close() })
	return p
}

// serveMCPGo serves tool (as delete_file) on an mcp-go server over p's server side; the
// result is the protocol revision of the last call.
func serveMCPGo(t *testing.T, p *pipes, tool *hitlmcpgo.Tool) func() string {
	t.Helper()
	var rev atomic.Value
	rev.Store("")
	s := server.NewMCPServer("files", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("delete_file"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rev.Store(server.RequestProtocolVersion(ctx))
		return tool.Handle(ctx, req)
	})
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = stdio.Listen(ctx, p.sr, p.sw) }()
	t.Cleanup(func() { cancel(); _ = p.sr.Close(); _ = p.sw.Close(); <-done })
	return func() string { return rev.Load().(string) }
}

// serveSDK serves tool (as delete_file) on a go-sdk server over p's server side; the
// result is the protocol revision of the last call.
func serveSDK(t *testing.T, p *pipes, tool *hitlmcp.Tool) func() string {
	t.Helper()
	var rev atomic.Value
	rev.Store("")
	s := gomcp.NewServer(&gomcp.Implementation{Name: "files", Version: "1"}, nil)
	s.AddTool(&gomcp.Tool{Name: "delete_file", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
		rev.Store(req.ProtocolVersion())
		return tool.Handle(ctx, req)
	})
	ss, err := s.Connect(context.Background(), &gomcp.IOTransport{Reader: p.sr, Writer: p.sw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close(); _ = ss.Wait() })
	return func() string { return rev.Load().(string) }
}

// sdkClient connects a go-sdk client with options o over p's client side at revision rev.
func sdkClient(t *testing.T, p *pipes, rev string, o *gomcp.ClientOptions) *gomcp.ClientSession {
	t.Helper()
	c := gomcp.NewClient(&gomcp.Implementation{Name: "agent", Version: "1"}, o)
	cs, err := c.Connect(t.Context(), &gomcp.IOTransport{Reader: p.cr, Writer: p.cw}, &gomcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// goClient connects an mcp-go client with options over p's client side at revision rev.
func goClient(t *testing.T, p *pipes, rev string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	opts = append(opts, client.WithProtocolVersion(rev))
	c := client.NewClient(transport.NewIO(p.cr, p.cw, io.NopCloser(strings.NewReader(""))), opts...)
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = rev
	init.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatal(err)
	}
	return c
}

// caseOf is the case id in a fake service's review URL (…/review/{id}?token=…).
func caseOf(t *testing.T, reviewURL string) string {
	t.Helper()
	u, err := url.Parse(reviewURL)
	if err != nil || !strings.HasPrefix(u.Path, "/review/") {
		t.Fatalf("review URL %q", reviewURL)
	}
	return strings.TrimPrefix(u.Path, "/review/")
}

// sdkText is r's text contents, one a line.
func sdkText(r *gomcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var texts []string
	for _, c := range r.Content {
		if tc, ok := c.(*gomcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// goText is r's text contents, one a line.
func goText(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var texts []string
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// decide makes the person decide with action on the review link forwarded to them; "none"
// leaves the case to its expiry.
func decide(t *testing.T, b *backend, action string) hitl.Forwarder {
	var n atomic.Int32
	return func(_ context.Context, it *hitl.Interrupt) error {
		if n.Add(1) == 1 {
			id := caseOf(t, it.Case.ReviewURL)
			switch action {
			case "none":
			case "expire":
				_ = b.svc.Expire(id)
			case "cancel":
				_ = b.svc.Cancel(id, "withdrawn")
			default:
				_ = b.svc.Respond(id, action, nil, nil)
			}
		}
		return nil
	}
}

var revisions = []string{"2026-07-28", "2025-11-25"}

var outcomes = []struct {
	action  string
	want    string
	isError bool
	deleted int32
}{
	{"approve", "deleted", false, 1},
	{"reject", "Not done: the person rejected delete_file.\nnot deleted: completed reject", true, 0},
	{"cancel", "Not done: the review of delete_file was cancelled.\nnot deleted: cancelled ", true, 0},
}

// TestSDKClientToMCPGoTool: a go-sdk client with hitlmcp's handler calls a hitlmcpgo tool
// on an mcp-go server; the review link reaches it as a URL elicitation on both revisions,
// and only an approval deletes.
func TestSDKClientToMCPGoTool(t *testing.T) {
	for _, rev := range revisions {
		for _, o := range outcomes {
			t.Run(rev+" "+o.action, func(t *testing.T) {
				b := newBackend(t)
				p := newPipes(t)
				spoke := serveMCPGo(t, p, b.goTool(3*time.Second))
				cs := sdkClient(t, p, rev, hitlmcp.ClientOptions(decide(t, b, o.action), nil))
				res, err := cs.CallTool(t.Context(), &gomcp.CallToolParams{Name: "delete_file"})
				if err != nil || sdkText(res) != o.want || res.IsError != o.isError || b.deleted.Load() != o.deleted {
					t.Fatalf("CallTool = %+v %q, %v; deleted %d; want %q isError=%v deleted %d", res, sdkText(res), err, b.deleted.Load(), o.want, o.isError, o.deleted)
				}
				if spoke() != rev {
					t.Errorf("the call spoke %q, want %q", spoke(), rev)
				}
			})
		}
	}
}

// TestMCPGoClientToSDKTool: an mcp-go client with hitlmcpgo's handler calls a hitlmcp tool
// on a go-sdk server, on both revisions.
func TestMCPGoClientToSDKTool(t *testing.T) {
	for _, rev := range revisions {
		for _, o := range outcomes {
			t.Run(rev+" "+o.action, func(t *testing.T) {
				b := newBackend(t)
				p := newPipes(t)
				spoke := serveSDK(t, p, b.sdkTool(3*time.Second))
				c := goClient(t, p, rev, hitlmcpgo.ClientOptions(decide(t, b, o.action), nil)...)
				req := mcp.CallToolRequest{}
				req.Params.Name = "delete_file"
				res, err := c.CallTool(t.Context(), req)
				if err != nil || goText(res) != o.want || res.IsError != o.isError || b.deleted.Load() != o.deleted {
					t.Fatalf("CallTool = %+v %q, %v; deleted %d; want %q isError=%v deleted %d", res, goText(res), err, b.deleted.Load(), o.want, o.isError, o.deleted)
				}
				if spoke() != rev {
					t.Errorf("the call spoke %q, want %q", spoke(), rev)
				}
			})
		}
	}
}

// discard keeps mcp-go's stdio server quiet in tests.
var discard = log.New(io.Discard, "", 0)
