package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"

	"github.com/hitlkit/hitlkit/internal/memhttp"
)

// TestFramed: whatever the read sizes, only whole events pass, and what follows the last
// blank line is dropped at the end of the stream.
func TestFramed(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"lf", "data: a\n\ndata: b\n\ndata: c", "data: a\n\ndata: b\n\n"},
		{"crlf", "data: a\r\n\r\ndata: b\r\n", "data: a\r\n\r\n"},
		{"cr", "data: a\r\rdata: b", "data: a\r\r"},
		{"comment only", ": ping\n\n: pi", ": ping\n\n"},
		{"partial id", "id: 1\ndata: a\n\nid: 2", "id: 1\ndata: a\n\n"},
		{"nothing whole", "data: a\ndata: b\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader, func(r io.Reader) io.Reader { return r }} {
				f := &framed{body: io.NopCloser(wrap(strings.NewReader(tt.in))), ctx: context.Background(), limit: 1 << 10}
				got, err := io.ReadAll(f)
				if err != nil || string(got) != tt.want {
					t.Errorf("read %q, %v; want %q", got, err, tt.want)
				}
			}
		})
	}
}

// TestFramedLimit: an event over the limit is an error, not a silent truncation.
func TestFramedLimit(t *testing.T) {
	in := "data: " + string(make([]byte, 2000)) + "\n\n"
	f := &framed{body: io.NopCloser(strings.NewReader(in)), ctx: context.Background(), limit: 1000}
	if _, err := io.ReadAll(f); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("ReadAll = %v, want ErrEventTooLarge", err)
	}
}

// TestConnectCRLFAtOnce: an event that ends in \r\n\r\n split across writes is delivered as
// soon as its last byte arrives, not when the next event does.
func TestConnectCRLFAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			_, _ = io.WriteString(w, "id: 7\r\ndata: x\r\n\r")
			_, _ = io.WriteString(w, "\n")
			<-r.Context().Done()
		})
		cfg := &Config{Client: &http.Client{Transport: &memhttp.Transport{Handler: h}}, MaxEventSize: 1 << 10}
		var got []Event
		st, err := Connect(t.Context(), cfg, "https://svc.example/e", "", func(ev Event) bool {
			got = append(got, ev)
			return false
		})
		if err != nil || len(got) != 1 || string(got[0].Data) != "x" || st.LastID != "7" {
			t.Fatalf("Connect = %+v, %v; events %+v", st, err, got)
		}
	})
}

// FuzzConnect feeds arbitrary bytes as an event stream: Connect must return, without panic,
// having delivered only events that were whole in the input.
func FuzzConnect(f *testing.F) {
	for _, seed := range []string{
		"id: 1\nevent: review.opened\ndata: {\"case_id\":\"c\"}\n\n",
		": ping\n\nevent: a\r\ndata: x\r\n\r\ndata: y\rdata: z\r\r",
		"retry: 5000\n\nid: 2\ndata: cut",
		"data\n\ndata:\n\nid:\nevent:\n\n",
		"id: 1\nid: 2\ndata: a\ndata: b\n\n\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(stream)
		})
		cfg := &Config{Client: &http.Client{Transport: &memhttp.Transport{Handler: h}}, MaxEventSize: 1 << 12}
		total := 0
		_, err := Connect(context.Background(), cfg, "https://svc.example/e", "", func(ev Event) bool {
			total += len(ev.Data)
			return true
		})
		if total > len(stream) {
			t.Fatalf("delivered %d bytes of data from a %d-byte stream", total, len(stream))
		}
		if err != nil && !errors.Is(err, ErrEventTooLarge) {
			t.Fatalf("Connect = %v", err)
		}
	})
}

// BenchmarkFirstEvent measures what reading a stream's first event costs, as Connect reads
// it: the stream's buffers (allocated when the stream opens, first written when the event
// arrives) and the event's parse, per stream.
func BenchmarkFirstEvent(b *testing.B) {
	const stream = "id: evt_3\nevent: review.completed\n" +
		`data: {"case_id":"review_c1","completed_at":"2026-02-22T10:05:18Z","result":{"action":"approve","data":{}}}` + "\n\n"
	r := strings.NewReader(stream)
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(stream)
		f := &framed{body: io.NopCloser(r), ctx: context.Background(), limit: 64 << 10}
		var got Event
		err := read(f, f.limit+64, func(ev Event, dispatch bool) bool {
			got = ev
			return !dispatch
		})
		if err != nil || got.Name != "review.completed" {
			b.Fatal(got, err)
		}
	}
}
