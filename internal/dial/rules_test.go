package dial

import (
	"net/netip"
	"testing"
)

// FuzzLooseIPv4: the early host check reads every inet_aton spelling; on a plain dotted quad
// it agrees with netip, and it never panics.
func FuzzLooseIPv4(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "127.1", "2130706433", "0x7f.1", "0177.0.0.1", "1.2.3.4.5", "0x", "08", "1..1", "4294967296"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := looseIPv4(s)
		if want, err := netip.ParseAddr(s); err == nil && want.Is4() {
			if !ok || got != want {
				t.Fatalf("looseIPv4(%q) = %v, %v; netip says %v", s, got, ok, want)
			}
		}
		_ = privateHost(s)
	})
}
