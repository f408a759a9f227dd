// Package clientcfg builds what every client of the module (hitl, a2a, hxp, hi) needs from
// its [transport.Option]s, on [transport.NewConfig] — the same code a client of one's own
// uses — with each protocol's defaults.
package clientcfg

import (
	"fmt"
	"net/url"
	"time"

	"github.com/hitlkit/hitlkit/internal/dial"
	"github.com/hitlkit/hitlkit/transport"
)

// Defaults are a protocol's defaults for what the common options set.
type Defaults struct {
	PollInterval   time.Duration
	RequestTimeout time.Duration
}

// Config is a client's configuration once its options are applied and its defaults filled in.
type Config = transport.Config

// New applies opts for the client named client, whose own options find own, and completes
// the result with d and the common defaults.
func New(client string, own any, d Defaults, opts []transport.Option) (*Config, error) {
	c, err := transport.NewConfig(client, own, opts...)
	if err != nil {
		return nil, err
	}
	if c.PollInterval == 0 {
		c.PollInterval = d.PollInterval
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = d.RequestTimeout
	}
	return c, nil
}

// Own returns an option of the client named client: see [transport.Own].
func Own[T any](client, name string, set func(*T) error) transport.Option {
	return transport.Own(client, name, set)
}

// Share is the option that makes a client use c's HTTP clients, logger, address rules and
// poll bound: see [transport.Config.Share].
func Share(c *Config) transport.Option { return c.Share() }

// CheckBase checks the base URL a client is made for: an absolute http(s) URL that the
// address rules admit.
func CheckBase(c *Config, client, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%s: NewClient: base URL must be an absolute http(s) URL", client)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		err = dial.ErrNotHTTPS
	} else {
		err = CheckURL(u, c.AllowPrivateAddresses)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: NewClient: base URL: %w", client, err)
	}
	return u, nil
}

// CheckURL applies the address rules: see [dial.CheckURL].
func CheckURL(u *url.URL, allowPrivate bool) error { return dial.CheckURL(u, allowPrivate) }
