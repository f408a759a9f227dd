package hitltest_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

// The helper process of TestOtherProcessCalls learns the URL to call, and the certificate to
// trust, from these.
const (
	envCaller = "HITLTEST_CALL_URL"
	envCert   = "HITLTEST_CALL_CERT"
)

// TestOtherProcessCalls: a server started with Start or StartTLS serves a call from another
// process — an agent the test runs as a program — whose only link to the server is the URL
// it was given: under the race detector the server's handlers read nothing that Start
// wrote after it began serving.
func TestOtherProcessCalls(t *testing.T) {
	if url := os.Getenv(envCaller); url != "" {
		callFromHelper(t, url)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, overTLS := range []bool{false, true} {
		s := hitltest.NewUnstartedServer()
		cert := ""
		if overTLS {
			s.StartTLS()
			cert = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}))
		} else {
			s.Start()
		}
		cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestOtherProcessCalls$", "-test.count=1")
		cmd.Env = append(os.Environ(), envCaller+"="+s.URL+"/actions/approval", envCert+"="+cert)
		out, err := cmd.CombinedOutput()
		s.Close()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("TLS %v: the other process: %v\n%s", overTLS, err, out)
		}
		if len(s.Requests()) != 1 {
			t.Errorf("TLS %v: %d requests logged, want 1", overTLS, len(s.Requests()))
		}
	}
}

// callFromHelper is the other process's side: one call, which the server answers with a 202.
func callFromHelper(t *testing.T, url string) {
	tr := &http.Transport{}
	if b, _ := pem.Decode([]byte(os.Getenv(envCert))); b != nil {
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AddCert(c)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	hc := &http.Client{Transport: tr}
	resp, err := hc.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d, want 202", resp.StatusCode)
	}
	hc.CloseIdleConnections()
}
