package transport_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/hitlkit/hitlkit/transport"
)

// A receiver for a service that signs its webhooks with X-Acme-Signature: sha256=<hex>. A
// Wait's Watch on the approval's id is woken by a verified notification (and polls to
// confirm it); an unsigned one is refused.
func ExampleNewWebhook() {
	secret := []byte("whsec-1")
	wh, err := transport.NewWebhook(transport.WebhookOptions{
		Secret: secret, Header: "X-Acme-Signature", Prefix: "sha256=",
		Parse: func(body []byte) (string, string, error) {
			var n struct{ ID, Event string }
			if json.Unmarshal(body, &n) != nil || n.ID == "" {
				return "", "", errors.New("not a notification")
			}
			return n.ID, n.Event, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What a Wait's Watch does for approval ap_42.
	stop := wh.Watch("ap_42", func() { fmt.Println("woken: poll at once") })
	defer stop()

	body := `{"id":"ap_42","event":"decided"}`
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(body))
	for _, sig := range []string{"sha256=" + hex.EncodeToString(mac.Sum(nil)), "sha256=forged"} {
		req := httptest.NewRequest(http.MethodPost, "/hooks/acme", strings.NewReader(body))
		req.Header.Set("X-Acme-Signature", sig)
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, req) // mounted in a mux, served by an http.Server with ReadHeaderTimeout
		fmt.Println(rec.Code)
	}
	// Output:
	// woken: poll at once
	// 200
	// 401
}
