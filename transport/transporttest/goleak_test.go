package transporttest_test

import (
	"net/http"
	"testing"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
)

// TestGoleakWithTheFakes holds what the fakes' docs say of goleak: a per-test check
// registered with t.Cleanup before the fake's NewServer (NewAgent, NewRelay) runs after the
// fake is closed and finds nothing, where the same check deferred in the test runs before
// the fake's own cleanup and finds the fake's goroutines.
func TestGoleakWithTheFakes(t *testing.T) {
	for name, start := range map[string]func(testing.TB) fake{
		"hitltest.NewServer": func(tb testing.TB) fake { s := hitltest.NewServer(tb); return fake{s.URL, s.Client()} },
		"hxptest.NewServer":  func(tb testing.TB) fake { s := hxptest.NewServer(tb); return fake{s.URL, s.Client()} },
		"a2atest.NewAgent":   func(tb testing.TB) fake { a := a2atest.NewAgent(tb); return fake{a.URL, a.Client()} },
		"a2atest.NewRelay":   func(tb testing.TB) fake { r := a2atest.NewRelay(tb); return fake{r.URL, r.Client()} },
	} {
		t.Run(name, func(t *testing.T) {
			// Goroutines of earlier tests are not this test's to judge.
			opts := []goleak.Option{goleak.IgnoreCurrent()}
			var cleanupFound, deferFound error
			t.Run("cleanup before NewServer", func(t *testing.T) {
				t.Cleanup(func() { cleanupFound = goleak.Find(opts...) })
				get(t, start(t))
			})
			if cleanupFound != nil {
				t.Errorf("a check registered with t.Cleanup before the fake found: %v", cleanupFound)
			}
			t.Run("defer", func(t *testing.T) {
				f := start(t)
				defer func() {
					deferFound = goleak.Find(opts...)
				}()
				get(t, f)
			})
			if deferFound == nil {
				t.Error("a deferred check found nothing while the fake was open; the docs' warning would be wrong")
			}
			if err := goleak.Find(opts...); err != nil { // once the fake's cleanup ran
				t.Errorf("after the fake closed: %v", err)
			}
		})
	}
}

// fake is a started fake: where it listens and the client that trusts it.
type fake struct {
	url    string
	client *http.Client
}

// get sends one request to the fake, so that its server and the client hold connections.
func get(t *testing.T, f fake) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, f.url+"/", nil)
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
}
