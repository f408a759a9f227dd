package hxp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestUnauthorizedWithoutCredential: a 401 to a client built without the credential the
// endpoint takes says the client sends none and which option gives it, and still matches
// transport.ErrUnauthorized and the *APIError with the server's code; with a wrong key it
// says neither.
func TestUnauthorizedWithoutCredential(t *testing.T) {
	s := hxptest.NewServer(t)
	common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses()}
	bare, err := hxp.NewClient(s.URL, common...)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := hxp.NewClient(s.URL, append(common, transport.WithAuthorization(key("sk-wrong")))...)
	if err != nil {
		t.Fatal(err)
	}
	_, errAgent := bare.Create(t.Context(), decide())
	_, errHuman := bare.Inbox(t.Context(), nil)
	_, errWrong := wrong.Create(t.Context(), decide())
	for _, tt := range []struct {
		name string
		err  error
		hint string // "": none
	}{
		{"create without a key", errAgent, "transport.WithAuthorization("},
		{"inbox without a token", errHuman, "hxp.WithHumanAuthorization("},
		{"create with a wrong key", errWrong, ""},
	} {
		var ae *hxp.APIError
		if !errors.Is(tt.err, transport.ErrUnauthorized) || !errors.As(tt.err, &ae) || ae.Code != "unauthorized" {
			t.Errorf("%s: %v, want the 401's *APIError matching transport.ErrUnauthorized", tt.name, tt.err)
			continue
		}
		sendsNone := strings.Contains(tt.err.Error(), "sends none")
		if tt.hint == "" && sendsNone || tt.hint != "" && (!sendsNone || !strings.Contains(tt.err.Error(), tt.hint)) {
			t.Errorf("%s: %v, want the advice %q only when no credential was given", tt.name, tt.err, tt.hint)
		}
	}
}
