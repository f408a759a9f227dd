package hitl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/duration"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/retry"
	"github.com/hitlkit/hitlkit/transport"
)

// WellKnownPath is where a service publishes its discovery document (HITL Protocol App. D).
const WellKnownPath = "/.well-known/hitl.json"

// defaultDiscoveryLifetime is how long a discovery document is cached when the response does
// not say (App. D recommends max-age=86400).
const defaultDiscoveryLifetime = 24 * time.Hour

// ErrNoDiscovery: the service publishes no discovery document (404). It may still answer with
// HITL 202s; discovery is advisory.
var ErrNoDiscovery = errors.New("hitl: service publishes no discovery document")

// Discovery is a service's /.well-known/hitl.json, read from either shape: the nested v0.7+
// {"hitl_protocol":{…}} or the flat v0.5/v0.6 {"hitl_protocol":"0.5", …}. Fields the
// document does not give are zero.
type Discovery struct {
	SpecVersion string
	ServiceName string
	ServiceURL  string
	ReviewTypes []string
	// Transports lists polling, sse and callback as the service advertises them; the legacy
	// shape gives polling, plus callback when features.callback is true.
	Transports           []string
	DefaultTimeout       time.Duration
	MaxTimeout           time.Duration
	SupportsInlineSubmit bool
	SupportsReminders    bool
	SupportsMultiRound   bool
	SupportsSignatures   bool
	// PollMinInterval and PollInterval are the advertised minimum and recommended delays
	// between polls; MaxRequestsPerMinute the advertised rate limit.
	PollMinInterval      time.Duration
	PollInterval         time.Duration
	MaxRequestsPerMinute int
	ReviewsBase          string
	ReviewPageBase       string
	// EventsBase is endpoints.events_base (v0.8), as served.
	EventsBase string
	// SupportsAgentBinding (v0.8): the service can bind a review to the agent or host that
	// started it, through an external auth profile. SupportsSurface, SurfaceFormats and
	// SurfaceProfiles: it publishes declarative UI surfaces beside the review URL.
	SupportsAgentBinding bool
	SupportsSurface      bool
	SurfaceFormats       []string
	SurfaceProfiles      []string
	// Authentication is the service's authentication block (v0.8); nil when absent.
	Authentication *DiscoveryAuthentication
	// Raw is the document as served.
	Raw json.RawMessage
	// Expires is when the cached copy goes stale.
	Expires time.Time
}

// DiscoveryAuthentication is how a service says agents authenticate (v0.8 discovery
// "authentication").
type DiscoveryAuthentication struct {
	Type          string   `json:"type"`
	TokenURL      string   `json:"token_url"`
	Scopes        []string `json:"scopes"`
	Profiles      []string `json:"profiles"`
	Documentation string   `json:"documentation"`
	WellKnown     string   `json:"well_known"`
}

// EventsURL returns the event stream of case caseID the document advertises, or "" when it
// advertises none: with "sse" among the transports, events_base when it holds a {case_id}
// (or {caseId}, {id}) placeholder, otherwise reviews_base + "/{case_id}/events", the path the
// protocol's OpenAPI description gives.
func (d *Discovery) EventsURL(caseID string) string {
	if d == nil || !slices.Contains(d.Transports, "sse") || !validCaseID(caseID) {
		return ""
	}
	for _, ph := range []string{"{case_id}", "{caseId}", "{id}"} {
		if strings.Contains(d.EventsBase, ph) {
			return strings.ReplaceAll(d.EventsBase, ph, caseID)
		}
	}
	if d.ReviewsBase == "" {
		return ""
	}
	return strings.TrimSuffix(d.ReviewsBase, "/") + "/" + caseID + "/events"
}

// parseDiscovery reads a discovery document in either shape.
func parseDiscovery(raw []byte) (*Discovery, error) {
	var top struct {
		Protocol json.RawMessage `json:"hitl_protocol"`
	}
	if err := json.Unmarshal(raw, &top); err != nil || len(top.Protocol) == 0 {
		return nil, &InvalidError{Object: "discovery document", Problems: []FieldError{{Field: "hitl_protocol", Problem: "missing"}}}
	}
	d := &Discovery{Raw: append(json.RawMessage(nil), raw...)}
	switch jsonKind(top.Protocol) {
	case "object":
		var n struct {
			SpecVersion string `json:"spec_version"`
			Service     struct {
				Name string `json:"name"`
				URL  string `json:"url"`
			} `json:"service"`
			Capabilities struct {
				ReviewTypes    []string `json:"review_types"`
				Transports     []string `json:"transports"`
				MaxTimeout     string   `json:"max_timeout"`
				DefaultTimeout string   `json:"default_timeout"`
				Reminders      bool     `json:"supports_reminders"`
				MultiRound     bool     `json:"supports_multi_round"`
				Signatures     bool     `json:"supports_signatures"`
				InlineSubmit   bool     `json:"supports_inline_submit"`
				AgentBinding   bool     `json:"supports_agent_binding"`
				Surface        bool     `json:"supports_surface"`
				SurfaceFormats []string `json:"surface_formats"`
				SurfaceProfile []string `json:"surface_profiles"`
			} `json:"capabilities"`
			Endpoints struct {
				ReviewsBase    string `json:"reviews_base"`
				ReviewPageBase string `json:"review_page_base"`
				EventsBase     string `json:"events_base"`
			} `json:"endpoints"`
			Authentication *DiscoveryAuthentication `json:"authentication"`
			RateLimits     struct {
				PollMin         float64 `json:"poll_min_interval_seconds"`
				PollRecommended float64 `json:"poll_recommended_interval_seconds"`
				PerMinute       int     `json:"max_requests_per_minute"`
			} `json:"rate_limits"`
		}
		if err := json.Unmarshal(top.Protocol, &n); err != nil {
			return nil, discoveryProblem(err)
		}
		cp := n.Capabilities
		d.SpecVersion, d.ServiceName, d.ServiceURL = n.SpecVersion, n.Service.Name, n.Service.URL
		d.ReviewTypes, d.Transports = cp.ReviewTypes, cp.Transports
		d.DefaultTimeout, _ = duration.Parse(cp.DefaultTimeout)
		d.MaxTimeout, _ = duration.Parse(cp.MaxTimeout)
		d.SupportsReminders, d.SupportsMultiRound, d.SupportsSignatures, d.SupportsInlineSubmit = cp.Reminders, cp.MultiRound, cp.Signatures, cp.InlineSubmit
		d.ReviewsBase, d.ReviewPageBase, d.EventsBase = n.Endpoints.ReviewsBase, n.Endpoints.ReviewPageBase, n.Endpoints.EventsBase
		d.SupportsAgentBinding, d.SupportsSurface = cp.AgentBinding, cp.Surface
		d.SurfaceFormats, d.SurfaceProfiles = cp.SurfaceFormats, cp.SurfaceProfile
		d.Authentication = n.Authentication
		d.PollMinInterval = seconds(n.RateLimits.PollMin)
		d.PollInterval = seconds(n.RateLimits.PollRecommended)
		d.MaxRequestsPerMinute = n.RateLimits.PerMinute
	case "string":
		var l struct {
			Version string `json:"hitl_protocol"`
			Service struct {
				Name     string `json:"name"`
				Homepage string `json:"homepage"`
			} `json:"service"`
			ReviewTypes    []string `json:"review_types"`
			ReviewBaseURL  string   `json:"review_base_url"`
			APIBaseURL     string   `json:"api_base_url"`
			TimeoutDefault string   `json:"timeout_default"`
			Features       struct {
				Callback bool `json:"callback"`
				Signed   bool `json:"signed_responses"`
			} `json:"features"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, discoveryProblem(err)
		}
		d.SpecVersion, d.ServiceName, d.ServiceURL = l.Version, l.Service.Name, l.Service.Homepage
		d.ReviewTypes = l.ReviewTypes
		d.Transports = []string{"polling"}
		if l.Features.Callback {
			d.Transports = append(d.Transports, "callback")
		}
		d.DefaultTimeout, _ = duration.Parse(l.TimeoutDefault)
		d.SupportsSignatures = l.Features.Signed
		d.ReviewsBase, d.ReviewPageBase = l.APIBaseURL, l.ReviewBaseURL
	default:
		return nil, &InvalidError{Object: "discovery document", Problems: []FieldError{{Field: "hitl_protocol", Problem: "must be an object or a version string"}}}
	}
	return d, nil
}

func discoveryProblem(err error) error {
	p := fieldErrorFromJSON(err)
	p.Field = "hitl_protocol." + strings.TrimPrefix(p.Field, "hitl")
	return &InvalidError{Object: "discovery document", Problems: []FieldError{p}}
}

func seconds(s float64) time.Duration {
	if s <= 0 || s > 24*3600 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

// discoveryCache holds discovery documents by origin. A 404 is cached as nil.
type discoveryCache struct {
	mu sync.Mutex
	m  map[string]discoveryEntry
}

type discoveryEntry struct {
	d       *Discovery
	expires time.Time
}

func (dc *discoveryCache) get(origin string, now time.Time) (*Discovery, bool) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	e, ok := dc.m[origin]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	return e.d, true
}

func (dc *discoveryCache) put(origin string, d *Discovery, expires time.Time) {
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if dc.m == nil {
		dc.m = make(map[string]discoveryEntry)
	}
	dc.m[origin] = discoveryEntry{d, expires}
}

// Discover fetches the discovery document of serviceURL's origin, or returns the cached copy
// while it is fresh (the response's Cache-Control max-age, else 24 hours,
// bounded to [1 min, 7 days]). A 404 is ErrNoDiscovery, remembered for the same lifetime.
// Transient failures (network errors, 429, 502–504) are retried up to 3 times, honouring
// Retry-After up to 30 s; other statuses are a [*transport.StatusError]. No credential is sent.
//
// Once a service's document is cached, [Client.Wait] on its cases paces polls by it: never
// faster than poll_min_interval_seconds, and every poll_recommended_interval_seconds when
// the service sends no Retry-After.
func (c *Client) Discover(ctx context.Context, serviceURL string) (*Discovery, error) {
	if c == nil {
		return nil, errNilClient
	}
	if problem := checkServiceURL(serviceURL, &c.detect); problem != "" {
		return nil, &InvalidError{Object: "service URL", Problems: []FieldError{{Field: "url", Problem: problem}}, refused: true}
	}
	origin := httpx.OriginOf(serviceURL)
	if d, ok := c.discovery.get(origin, time.Now()); ok {
		if d == nil {
			return nil, ErrNoDiscovery
		}
		return d, nil
	}
	target := origin + WellKnownPath
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("hitl: discover: %w", httpx.StripURL(err))
	}
	req.Header.Set("Accept", "application/json")
	resp, err := retry.Do(c.service, req, retry.Policy{})
	if err != nil {
		return nil, fmt.Errorf("hitl: discover %s: %w", origin, httpx.StripURL(err))
	}
	defer httpx.DrainClose(resp.Body)
	expires := time.Now().Add(maxAge(resp.Header))
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		c.discovery.put(origin, nil, expires)
		return nil, ErrNoDiscovery
	default:
		b, _ := httpx.ReadLimited(resp.Body, 512)
		return nil, fmt.Errorf("hitl: discover: %w", &transport.StatusError{StatusCode: resp.StatusCode, URL: httpx.Redact(target), Body: b})
	}
	raw, err := httpx.ReadLimited(resp.Body, c.detect.MaxBody)
	if err != nil {
		return nil, fmt.Errorf("hitl: discover %s: %w", origin, err)
	}
	d, err := parseDiscovery(raw)
	if err != nil {
		return nil, err
	}
	d.Expires = expires
	c.discovery.put(origin, d, expires)
	return d, nil
}

// maxAge reads Cache-Control max-age, bounded to [1 min, 7 days].
func maxAge(h http.Header) time.Duration {
	for _, part := range strings.Split(h.Get("Cache-Control"), ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return min(max(time.Duration(n)*time.Second, time.Minute), 7*24*time.Hour)
			}
		}
	}
	return defaultDiscoveryLifetime
}

// eventsURL is the event stream a wait follows: the case's events_url, or, when it has none,
// the one the service's cached discovery document advertises (Wait fetches it first when the
// client has WithAutoDiscovery), on the poll URL's origin only; "" when there is none.
func (c *Client) eventsURL(it *Interrupt) string {
	cs := it.Case
	if cs.EventsURL != "" {
		if checkServiceURL(cs.EventsURL, &c.detect) != "" {
			return ""
		}
		return cs.EventsURL
	}
	origin := httpx.OriginOf(cs.PollURL)
	d, _ := c.discovery.get(origin, time.Now())
	u := d.EventsURL(cs.CaseID)
	if u == "" || httpx.OriginOf(u) != origin || checkServiceURL(u, &c.detect) != "" {
		return ""
	}
	return u
}

// pacing returns the poll interval bounds for a poll URL: the client's, tightened by the
// service's cached discovery document when there is one.
func (c *Client) pacing(pollURL string) (interval, lo, hi time.Duration) {
	lo, hi = c.minInterval, c.maxInterval
	d, ok := c.discovery.get(httpx.OriginOf(pollURL), time.Now())
	if !ok || d == nil {
		return 0, lo, hi
	}
	lo = min(max(lo, d.PollMinInterval), hi)
	if d.PollInterval > 0 {
		interval = min(max(d.PollInterval, lo), hi)
	}
	return interval, lo, hi
}
