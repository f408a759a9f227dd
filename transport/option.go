package transport

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hitlkit/hitlkit/internal/clientopt"
)

// Option configures a client of this module: hitl.NewClient, a2a.NewClient, hxp.NewClient
// and hi.NewClient all take Options. The options every client shares are the With functions
// of this package; each protocol package adds its own (hitl.WithForwarder,
// a2a.WithMessageIDs, hxp.WithAPIPrefix, …), of the same type, so one list mixes both:
//
//	hitl.NewClient(transport.WithHTTPClient(hc), hitl.WithForwarder(f))
//
// NewClient applies the options in order (of two that set the same thing, the later wins)
// and returns the first it refuses, matching [ErrInvalidOption]: a bad value, a nil value, or an
// option of another client (a2a.WithMessageIDs given to hitl.NewClient), which is never
// ignored. A nil Option is skipped, so a list may hold options chosen at run time.
//
// A client of one's own takes Options the same way: [NewConfig] applies them, with the same
// rules and errors, and [Own] makes the client's own options.
type Option func(*Settings) error

// refuse is the error of a common option given a bad value.
func refuse(s *Settings, option, problem string) error {
	return clientopt.Refused(s.client, "transport."+option, problem)
}

// WithHTTPClient sends the client's requests through a copy of hc: its transport and
// instrumentation apply. Default: http.DefaultClient. A nil hc is refused.
//
// The requests the client makes itself (polls, event streams, task queries, submits, the
// HXP WebSocket handshake, …) never follow a redirect, whatever hc's CheckRedirect says: a
// 3xx is the answer, so no credential is carried to wherever it points. Only the calls a
// caller hands to hitl's Client.Do go through hc's own redirect policy. hc's Timeout should
// be 0, since it would cut every long-lived event stream; bound requests with
// [WithRequestTimeout] and waits with their context.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *Settings) error {
		if hc == nil {
			return refuse(s, "WithHTTPClient", "nil client")
		}
		cp := *hc
		s.http = &cp
		return nil
	}
}

// WithLogger sends debug records (ids, hosts and paths; never a credential, a query string,
// a body or a decision) to l. Default: discarded. A nil l is refused.
func WithLogger(l *slog.Logger) Option {
	return func(s *Settings) error {
		if l == nil {
			return refuse(s, "WithLogger", "nil logger")
		}
		s.logger = l
		return nil
	}
}

// WithAuthorization sets the agent's credential for the service, sent as the Authorization
// header — for example StaticToken("sk-…"), or a Credential of one's own that rotates. It is
// called once per request, so it must be safe for concurrent use, and sent only to the
// service's own origin: for hitl, the origin of the request that produced the interrupt (or
// hitl.WithTrustedOrigins'); for a2a, the agent endpoint's; for hxp, the server's agent
// endpoints and WebSocket; for hi, the endpoint's. Default: none (hitl's Client.Do then
// reuses the Authorization header of the request it sent). A nil credential is refused.
func WithAuthorization(c Credential) Option {
	return func(s *Settings) error {
		if c == nil {
			return refuse(s, "WithAuthorization", "nil credential")
		}
		s.credential = c
		return nil
	}
}

// WithMaxBody bounds every response body the client reads (a 202, a poll's answer, a
// task). Default 1 MiB; A2A stream events are bounded to 10 MiB each, as a2a-go allows. A
// longer body fails with [ErrBodyTooLarge]. n must be positive.
func WithMaxBody(n int64) Option {
	return func(s *Settings) error {
		if n <= 0 {
			return refuse(s, "WithMaxBody", "size must be positive")
		}
		s.maxBody = n
		return nil
	}
}

// WithMaxPollsInFlight bounds the polls (task queries, for A2A) a client's waits have in
// flight at once at one origin, over all its waits; a poll past the bound waits its turn,
// then goes. Default 1,000. The bound matters when thousands of waits poll at once — a
// restart that resumes them all, a service slower than the pace it asked for: without it
// every late poll holds a request, and an HTTP/2 client opens connection after connection to
// carry them. A wait that is woken (an event, a callback) still polls only when a slot is
// free. n must be at least 1.
func WithMaxPollsInFlight(n int) Option {
	return func(s *Settings) error {
		if n < 1 {
			return refuse(s, "WithMaxPollsInFlight", "needs at least 1")
		}
		s.maxPolls = n
		return nil
	}
}

// WithPollInterval sets the delay between two polls of a wait when the service sends no
// Retry-After. Default: 30 s for hitl (HITL Protocol §8's lower recommendation), 5 s for
// a2a (the relay pattern's pace), hxp and hi. d may not be under 1 s: HITL Protocol §13.5
// allows 60 requests per minute per case, and no other protocol here asks for more.
func WithPollInterval(d time.Duration) Option {
	return func(s *Settings) error {
		if d < time.Second {
			return refuse(s, "WithPollInterval", "under 1 s")
		}
		s.pollInterval = d
		return nil
	}
}

// WithRequestTimeout bounds each request that is not a stream: a poll, a submit, a
// discovery fetch, an A2A send, the opening of an event stream or a WebSocket (not the
// stream itself). Default 30 s; for a2a 2 min, since a blocking send lasts the agent's whole
// turn. A poll that takes longer is a transient failure and is retried; a wait as a whole is
// bounded by its context. d must be positive.
func WithRequestTimeout(d time.Duration) Option {
	return func(s *Settings) error {
		if d <= 0 {
			return refuse(s, "WithRequestTimeout", "not positive")
		}
		s.requestTimeout = d
		return nil
	}
}

// WithAllowPrivateAddresses admits services on this machine and on private networks:
// loopback, private and link-local addresses, and plain http on http://localhost and
// http://127.0.0.1 (which HITL Protocol v0.7+ allows for development) — for tests, a local
// fake, a service inside the agent's own network.
//
// Default: every URL must be https (wss for a WebSocket) and reach a public address. A URL
// that is not, or whose host is localhost or a loopback, private, link-local, unspecified or
// NAT64 IP literal in any spelling (127.1, 2130706433, 0x7f.1, localhost.), is refused before
// a request is sent, and every connection is checked where it is dialled: a host that
// resolves to such an address is refused. Both fail with an error matching
// [ErrRefusedAddress] that ends a wait, so a hostile answer cannot point the agent and its
// credentials into its own network. (A HITL object naming such a URL is also invalid, and
// hxp's and hi's NewClient refuse such a base URL.) The dial check applies when the client's transport is an *http.Transport (the
// default); any other transport is not wrapped: check addresses in its own dialer. Plain http
// to any other host stays refused.
func WithAllowPrivateAddresses() Option {
	return func(s *Settings) error {
		s.allowPrivate = true
		return nil
	}
}
