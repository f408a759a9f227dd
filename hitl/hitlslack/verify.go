package hitlslack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Slack's request signing (api.slack.com/authentication/verifying-requests-from-slack):
// X-Slack-Signature is "v0=" and the hex HMAC-SHA256, keyed by the app's signing secret,
// of "v0:" + X-Slack-Request-Timestamp + ":" + the raw body; a timestamp more than five
// minutes from now is refused, against replays.
const (
	headerSignature = "X-Slack-Signature"
	headerTimestamp = "X-Slack-Request-Timestamp"
	signatureScheme = "v0"
	maxSkew         = 5 * time.Minute
	// maxReplays bounds the signatures remembered within the window.
	maxReplays = 100_000
)

// Errors of signature verification; the handler answers each 401.
var (
	errUnsigned = errors.New("hitlslack: request not signed")
	errForged   = errors.New("hitlslack: signature does not match")
	errStale    = errors.New("hitlslack: timestamp outside the five-minute window")
	errReplayed = errors.New("hitlslack: request already received")
	errBusy     = errors.New("hitlslack: too many signatures to remember")
)

// sign returns the v0 signature of body sent at ts.
func sign(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(signatureScheme + ":" + ts + ":"))
	m.Write(body)
	return m.Sum(nil)
}

// verify checks a request's signature and timestamp against now, in constant time over the
// raw body. It returns the MAC the signature holds: hex is read in either case, so the MAC,
// not the header's spelling, is what a replay is recognised by.
func verify(secret []byte, ts, sig string, body []byte, now time.Time) ([]byte, error) {
	if ts == "" || sig == "" {
		return nil, errUnsigned
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || secs <= 0 || secs > 1<<40 {
		return nil, errUnsigned
	}
	if d := now.Sub(time.Unix(secs, 0)); d > maxSkew || d < -maxSkew {
		return nil, errStale
	}
	hexMAC, ok := strings.CutPrefix(sig, signatureScheme+"=")
	if !ok || len(hexMAC) != 2*sha256.Size {
		return nil, errForged
	}
	got, err := hex.DecodeString(hexMAC)
	if err != nil || !hmac.Equal(got, sign(secret, ts, body)) {
		return nil, errForged
	}
	return got, nil
}

// replayCache remembers the MACs of the requests received within the window, so a request
// sent again (same body, same timestamp, however its signature is spelled) is refused.
// Guarded by Bot.mu.
type replayCache struct {
	seen  map[string]time.Time
	order []string
}

// admit records mac until its timestamp leaves the window; it reports errReplayed for a
// MAC seen before.
func (c *replayCache) admit(mac []byte, until, now time.Time) error {
	sig := string(mac)
	for len(c.order) > 0 && now.After(c.seen[c.order[0]]) {
		delete(c.seen, c.order[0])
		c.order = c.order[1:]
	}
	if _, ok := c.seen[sig]; ok {
		return errReplayed
	}
	if len(c.order) >= maxReplays {
		return errBusy
	}
	if c.seen == nil {
		c.seen = make(map[string]time.Time)
	}
	c.seen[sig] = until
	c.order = append(c.order, sig)
	return nil
}
