package hitlslack

import (
	"bytes"
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseInteraction: any body is read without a panic into nothing, an error, or an
// interaction whose fields stay within their bounds and whose value is one this package
// spells.
func FuzzParseInteraction(f *testing.F) {
	for _, s := range []string{
		`{"type":"block_actions","user":{"id":"U1","name":"ana"},"trigger_id":"t","container":{"channel_id":"D1","message_ts":"1.2"},"actions":[{"action_id":"a","value":"hk1|agent|hitl|hitl:abc:approve|approve"}]}`,
		`{"type":"block_actions","user":{"id":"U1"},"channel":{"id":"C1"},"message":{"ts":"1.2"},"actions":[{"value":"hk1|agent|hxp|req-1|o:Option | with bar"}]}`,
		`{"type":"view_submission","user":{"id":"U1"},"view":{"private_metadata":"{\"c\":\"D1\",\"t\":\"1.2\",\"v\":\"hk1|agent|a2a|h|m:\"}","state":{"values":{"answer":{"text":{"value":"yes"}}}}}}`,
		`{"type":"block_actions","user":{"id":"U1"},"actions":[]}`,
		`{"type":"shortcut","user":{"id":"U1"}}`,
		`[]`, `null`, `{"type":"block_actions","user":{"id":""}}`,
	} {
		f.Add([]byte("payload=" + url.QueryEscape(s)))
	}
	f.Add([]byte("payload=%zz"))
	f.Add([]byte("a=b&payload="))
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := parseInteraction(body)
		if err != nil {
			if in != nil {
				t.Fatal("an interaction with an error")
			}
			return
		}
		if in == nil {
			return
		}
		if in.user == "" || len(in.user) > maxID || in.key.channel == "" || in.key.ts == "" ||
			len(in.key.channel) > maxID || len(in.key.ts) > maxID || len(in.text) > maxText || len(in.name) > maxID {
			t.Fatalf("out of bounds: %+v", in)
		}
		if in.kind != typeBlockActions && in.kind != typeViewSubmission {
			t.Fatalf("kind %q", in.kind)
		}
		v, ok := parseValue(in.value.String())
		if !ok || v != in.value {
			t.Fatalf("value %q does not read back", in.value)
		}
	})
}

// FuzzVerify: the signature of the exact body verifies exactly when its timestamp is a
// Unix time within five minutes, and never for another body; in upper-case hex it is the
// same MAC (what a replay is recognised by).
func FuzzVerify(f *testing.F) {
	f.Add("1700000000", []byte("payload=x"))
	f.Add("1700000301", []byte{})
	f.Add("-1", []byte("x"))
	f.Add("17e8", []byte("x"))
	secret := []byte("s3cr3t")
	now := time.Unix(1700000000, 0)
	f.Fuzz(func(t *testing.T, ts string, body []byte) {
		good := "v0=" + hex.EncodeToString(sign(secret, ts, body))
		secs, perr := strconv.ParseInt(ts, 10, 64)
		inWindow := perr == nil && secs > 0 && secs >= now.Unix()-300 && secs <= now.Unix()+300
		mac, err := verify(secret, ts, good, body, now)
		if (err == nil) != inWindow {
			t.Fatalf("verify(%q) = %v, in window %v", ts, err, inWindow)
		}
		if upper, err := verify(secret, ts, "v0="+strings.ToUpper(good[3:]), body, now); inWindow && (err != nil || !bytes.Equal(upper, mac)) {
			t.Fatalf("the signature in upper-case hex = %x, %v; want the same MAC as %x", upper, err, mac)
		}
		if _, err := verify(secret, ts, good, append(body, 'x'), now); err == nil {
			t.Fatal("another body verified")
		}
		if _, err := verify(secret, ts, strings.ToUpper(good[:3])+good[3:], body, now); err == nil && inWindow {
			t.Fatal("another scheme verified")
		}
	})
}
