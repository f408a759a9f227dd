package hitlslack

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkParseInteraction: parseInteraction on the interactivity bodies Slack could send,
// at 1 KiB, 64 KiB (the body limit) and 1 MiB: a payload whose extra member is a long digit
// run, deep nesting, many keys, one key repeated or a string of escapes, and a form of many
// fields around the payload; each percent-encoded as Slack sends it. The cost per byte stays
// within 2× across sizes (the numbers are in the package documentation, "Bounded work").
func BenchmarkParseInteraction(b *testing.B) {
	const head = `{"type":"block_actions","user":{"id":"U1","name":"ana"},"trigger_id":"t","container":{"channel_id":"D1","message_ts":"1.2"},"actions":[{"action_id":"a","value":"hk1|agent|hitl|hitl:abc:approve|approve"}],"x":`
	payload := func(n int, value func(m int) string) []byte {
		// percent-encoding about triples what it encodes: size the value to the body.
		m := max(1, n/3-len(head))
		return []byte("payload=" + url.QueryEscape(head+value(m)+"}"))
	}
	list := func(item func(i int) string) func(m int) string {
		return func(m int) string { return string(bytecost.List("{", item, ",", "}", m)) }
	}
	bytecost.Run(b, map[string]bytecost.Shape{
		"digits": func(n int) []byte { return payload(n, func(m int) string { return strings.Repeat("9", m) }) },
		"nesting": func(n int) []byte {
			return payload(n, func(m int) string { return string(bytecost.Nest("[", "1", "]", m)) })
		},
		"keys":     func(n int) []byte { return payload(n, list(func(i int) string { return fmt.Sprintf(`"k%d":1`, i) })) },
		"same-key": func(n int) []byte { return payload(n, list(func(int) string { return `"k":1` })) },
		"escapes": func(n int) []byte {
			return payload(n, func(m int) string { return `"` + strings.Repeat(`\u00e9`, m/6) + `"` })
		},
		"fields": func(n int) []byte {
			return bytecost.List("payload="+url.QueryEscape(head+"1}"), func(i int) string { return fmt.Sprintf("f%d=v", i) }, "&", "", n)
		},
	}, func(in []byte) { _, _ = parseInteraction(in) })
}
