package transport_test

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
	"github.com/hitlkit/hitlkit/transport"
)

// BenchmarkWebhook: Webhook on signed notifications at 1 KiB, 64 KiB (the default body
// limit) and 1 MiB (with MaxBody raised to read it), each holding a long digit run, deep
// nesting, many keys, one key repeated or a string of escapes beside its id and event: the
// read, the MAC over the body and the Parse of the tests (encoding/json) together. The
// figures and the command are in the package documentation ("Bounded work").
func BenchmarkWebhook(b *testing.B) {
	wrap := `{"id":"ap_1","event":"decided","x":%s}`
	in := func(n int, value func(m int) []byte) []byte { return []byte(fmt.Sprintf(wrap, value(n-len(wrap)+2))) }
	wh := newWebhook(b, transport.WebhookOptions{MaxBody: 2 << 20})
	bytecost.Run(b, map[string]bytecost.Shape{
		"digits":  func(n int) []byte { return in(n, func(m int) []byte { return bytecost.Repeat("", "9", "", m) }) },
		"nesting": func(n int) []byte { return in(n, func(m int) []byte { return bytecost.Nest("[", "1", "]", m) }) },
		"keys": func(n int) []byte {
			return in(n, func(m int) []byte {
				return bytecost.List("{", func(i int) string { return fmt.Sprintf(`"k%d":1`, i) }, ",", "}", m)
			})
		},
		"same-key": func(n int) []byte {
			return in(n, func(m int) []byte { return bytecost.List("{", func(int) string { return `"k":1` }, ",", "}", m) })
		},
		"escapes": func(n int) []byte { return in(n, func(m int) []byte { return bytecost.Repeat(`"`, `\u00e9`, `"`, m) }) },
	}, func(body []byte) {
		post(wh, body, "X-Acme-Signature", "sha256="+hex.EncodeToString(sign(body, webhookSecret)))
	})
}
