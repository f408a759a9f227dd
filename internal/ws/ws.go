// Package ws wraps github.com/coder/websocket for the one thing the waiters need: dial a
// URL with credentials, read messages, keep the connection checked with pings, close. No
// type of the library leaves this package.
package ws

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// Conn is one client connection. Read must be called from one goroutine at a time; Ping and
// Close may be called from another.
type Conn struct {
	c *websocket.Conn
}

// ErrClosedByPeer: the server closed the connection normally.
var ErrClosedByPeer = errors.New("websocket closed by the server")

// Dial opens a connection to url (ws:// or wss://) through client, sending header, and
// limits each message to readLimit bytes.
func Dial(ctx context.Context, url string, client *http.Client, header http.Header, readLimit int64) (*Conn, error) {
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: client, HTTPHeader: header})
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(readLimit)
	return &Conn{c: c}, nil
}

// Read returns the next message. Cancelling ctx closes the connection (the library's rule).
func (c *Conn) Read(ctx context.Context) ([]byte, error) {
	_, b, err := c.c.Read(ctx)
	if err != nil && websocket.CloseStatus(err) == websocket.StatusNormalClosure {
		return nil, ErrClosedByPeer
	}
	return b, err
}

// Ping sends a ping and waits up to timeout for the pong, which a concurrent Read receives.
func (c *Conn) Ping(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.c.Ping(ctx)
}

// Close closes the connection at once, without the closing handshake.
func (c *Conn) Close() error { return c.c.CloseNow() }

// Server-side helpers, for fakes.

// ServerConn is one accepted connection.
type ServerConn struct {
	c *websocket.Conn
}

// Accept upgrades an HTTP request.
func Accept(w http.ResponseWriter, r *http.Request) (*ServerConn, error) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil, err
	}
	return &ServerConn{c: c}, nil
}

// Write sends one text message.
func (s *ServerConn) Write(ctx context.Context, msg []byte) error {
	return s.c.Write(ctx, websocket.MessageText, msg)
}

// Wait reads (and drops) messages until the connection ends or ctx does: it answers the
// client's pings meanwhile.
func (s *ServerConn) Wait(ctx context.Context) {
	for {
		if _, _, err := s.c.Read(ctx); err != nil {
			return
		}
	}
}

// Close closes normally; CloseNow drops the connection without a handshake.
func (s *ServerConn) Close() error    { return s.c.Close(websocket.StatusNormalClosure, "") }
func (s *ServerConn) CloseNow() error { return s.c.CloseNow() }
