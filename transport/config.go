package transport

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hitlkit/hitlkit/internal/clientopt"
	"github.com/hitlkit/hitlkit/internal/dial"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/pace"
	"github.com/hitlkit/hitlkit/internal/telemetry"
)

// Settings is what a client's [Option]s record, before [NewConfig] checks and completes it.
// Its content is reached only through the options: the With functions of this package, and
// a client's own options made with [Own].
type Settings struct {
	client string
	own    any
	shared *Config

	http           *http.Client
	logger         *slog.Logger
	credential     Credential
	maxBody        int64
	maxPolls       int
	pollInterval   time.Duration
	requestTimeout time.Duration
	allowPrivate   bool

	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
	audit          func(context.Context, Record)
}

// Config is what a client's [Option]s come to, once checked and completed: what hitl, a2a,
// hxp and hi build their clients from, and what a client of one's own builds from, with
// [NewConfig], to take the same options with the same rules and errors. Its fields are set
// by NewConfig; read them, do not change them.
type Config struct {
	// HTTP is the caller's client ([WithHTTPClient], a copy; default http.DefaultClient)
	// with its own redirect policy: for requests the caller hands over as they are.
	HTTP *http.Client
	// Service is the client for every request the client makes itself (a [Wait]'s Client):
	// no redirect is followed, every URL is held to the address rules before it is sent, and,
	// unless [WithAllowPrivateAddresses], connections go to public addresses only (when
	// HTTP's transport is an *http.Transport, the default). A refusal matches
	// [ErrRefusedAddress] and ends a Wait.
	Service *http.Client
	// Logger is [WithLogger]'s logger; default: discarded.
	Logger *slog.Logger
	// Credential is [WithAuthorization]'s credential, nil when none; send it with
	// [Config.Authorize], which keeps it to one origin.
	Credential Credential
	// MaxBody is [WithMaxBody]'s bound; default 1 MiB. A [Wait]'s MaxBody.
	MaxBody int64
	// PollInterval and RequestTimeout are [WithPollInterval]'s and [WithRequestTimeout]'s
	// values; 0 when not given (a [Wait] given 0 applies its own default).
	PollInterval   time.Duration
	RequestTimeout time.Duration
	// Polls bounds the polls in flight per origin over all the client's waits
	// ([WithMaxPollsInFlight], default 1,000): a [Wait]'s Slots.
	Polls *Slots
	// AllowPrivateAddresses is [WithAllowPrivateAddresses].
	AllowPrivateAddresses bool

	// The client's telemetry ([WithTracerProvider], [WithMeterProvider], [WithPropagator]),
	// audit hook ([WithAudit]) and the waits it observes now ([Config.Observe]); a Config
	// made with [Config.Share] shares them.
	tel   *telemetry.Telemetry
	audit func(context.Context, Record)
	open  *openWaits
}

// NewConfig applies opts, in order, for the client named client ("acme", used in errors),
// and completes the result with the defaults every client of this module has. own is the
// client's own settings, which its own options ([Own]) find; nil when it has none.
//
// It refuses what every client refuses, with the same errors: the first option that fails,
// matching [ErrInvalidOption] ("acme: NewClient: transport.WithMaxBody: size must be
// positive: invalid option"), an option of another client included. A nil Option is
// skipped.
func NewConfig(client string, own any, opts ...Option) (*Config, error) {
	s := Settings{client: client, own: own}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	c := &Config{Credential: s.credential, MaxBody: s.maxBody, PollInterval: s.pollInterval, RequestTimeout: s.requestTimeout}
	if c.MaxBody == 0 && s.shared != nil {
		c.MaxBody = s.shared.MaxBody
	}
	if c.MaxBody == 0 {
		c.MaxBody = httpx.DefaultBodyLimit
	}
	if sh := s.shared; sh != nil {
		c.HTTP, c.Service, c.Logger, c.Polls = sh.HTTP, sh.Service, sh.Logger, sh.Polls
		c.AllowPrivateAddresses = sh.AllowPrivateAddresses
		c.tel, c.audit, c.open = sh.tel, sh.audit, sh.open
		return c, nil
	}
	c.tel = telemetry.New(s.tracerProvider, s.meterProvider, s.propagator)
	c.audit, c.open = s.audit, &openWaits{}
	c.AllowPrivateAddresses = s.allowPrivate
	c.Logger = s.logger
	if c.Logger == nil {
		c.Logger = discard
	}
	c.HTTP = s.http
	if c.HTTP == nil {
		cp := *http.DefaultClient
		c.HTTP = &cp
	}
	c.Service = serviceClient(c.HTTP, c.AllowPrivateAddresses, c.tel)
	n := s.maxPolls
	if n == 0 {
		n = pace.MaxPollsInFlight
	}
	c.Polls = &Slots{n: n}
	return c, nil
}

// serviceClient derives from hc the client for the requests a client makes itself; tel, when
// set, carries the trace context of each request's wait.
func serviceClient(hc *http.Client, allowPrivate bool, tel *telemetry.Telemetry) *http.Client {
	if !allowPrivate {
		hc = dial.PublicOnly(hc, &dial.PublicDialer{})
	}
	cp := *hc
	cp.Transport = &dial.Guard{RT: hc.Transport, AllowPrivate: allowPrivate, Tel: tel}
	cp.CheckRedirect = httpx.NoRedirect
	return &cp
}

// defaultService is the Service of a Config without options: a [Wait] without a Client polls
// through it.
var defaultService = sync.OnceValue(func() *http.Client { return serviceClient(&http.Client{}, false, nil) })

// Own returns an option of the client named client ("acme"), named name ("WithTenant": the
// error names it "acme.WithTenant"), that
// applies set to that client's own settings: the *T given to [NewConfig] as own. Given to
// another client, it is refused with an error matching [ErrInvalidOption] that names both;
// an error from set is refused naming its problem (its text should not hold the value).
func Own[T any](client, name string, set func(*T) error) Option {
	return func(s *Settings) error {
		t, ok := s.own.(*T)
		if !ok {
			if s.own == nil && s.client == client {
				return clientopt.Refused(s.client, client+"."+name, "NewConfig was given no own settings for it (its own argument is nil)")
			}
			return clientopt.Refused(s.client, client+"."+name, "configures "+client+" clients only")
		}
		if err := set(t); err != nil {
			return clientopt.Refused(s.client, client+"."+name, err.Error())
		}
		return nil
	}
}

// Share is the option that makes another client use c's HTTP clients, logger, address rules
// and poll slots (and so its connections, and its bound on polls in flight) instead of
// building its own, and c's bound on bodies unless it sets its own. Its credential and pacing
// stay its own.
func (c *Config) Share() Option {
	return func(s *Settings) error {
		if c == nil {
			return clientopt.Refused(s.client, "transport.Config.Share", "nil config")
		}
		s.shared = c
		return nil
	}
}

// Authorize returns what a [Wait]'s Authorize does with the client's credential: set the
// Authorization header from Credential on a request to origin (a URL; its scheme, host and
// port count), and on no other — so a poll URL a service hands back cannot carry the
// credential elsewhere. Without a credential, or for an origin that is not an absolute URL,
// it sets nothing.
func (c *Config) Authorize(origin string) func(ctx context.Context, req *http.Request) error {
	want := httpx.OriginOf(origin)
	return func(ctx context.Context, req *http.Request) error {
		if c.Credential == nil || want == "" || httpx.Origin(req.URL) != want {
			return nil
		}
		return httpx.Authorize(ctx, req, c.Credential)
	}
}

// CheckURL checks raw — a URL a service handed back, before the client waits on it — against
// the address rules the client keeps: an absolute URL, https (or wss), not naming localhost
// or a private address unless [WithAllowPrivateAddresses] (which also admits plain http on
// localhost and 127.0.0.1). The error matches [ErrRefusedAddress], says which rule and never
// holds the URL. Service applies the same rules to every request, and its dialer checks
// where a name resolves.
func (c *Config) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errNotAbsolute
	}
	return dial.CheckURL(u, c.AllowPrivateAddresses)
}

var errNotAbsolute = fmt.Errorf("not an absolute URL: %w", ErrRefusedAddress)

// Slots bound the polls in flight per origin: every [Wait] given the same Slots takes one
// for its URL's origin before each poll and frees it after, so at most n polls of one origin
// are in flight at once, however many waits share them. A [Config]'s Polls are made from
// [WithMaxPollsInFlight]. Safe for concurrent use; a nil *Slots bounds nothing.
type Slots struct {
	n int
	m sync.Map // origin → chan struct{} of cap n
}

// of returns the slots of rawURL's origin; nil (no bound) on nil Slots.
func (s *Slots) of(rawURL string) chan struct{} {
	if s == nil || s.n < 1 {
		return nil
	}
	origin := httpx.OriginOf(rawURL)
	if c, ok := s.m.Load(origin); ok {
		return c.(chan struct{})
	}
	c, _ := s.m.LoadOrStore(origin, make(chan struct{}, s.n))
	return c.(chan struct{})
}

// Temporary marks err, returned by a [Wait]'s Decode, as transient — a body cut short, a
// snapshot the service is still writing: the wait backs off and polls again instead of
// ending, as it does after a 503. Temporary(nil) is nil. The protocol packages of this
// module mark their transient decode errors the same way.
func Temporary(err error) error { return httpx.Temporary(err) }
