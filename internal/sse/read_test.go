package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAll reads every event of stream with Read, through r's chunking.
func readAll(r io.Reader) ([]Event, error) {
	var got []Event
	err := Read(r, 1<<10, func(ev Event) bool {
		got = append(got, ev)
		return true
	})
	return got, err
}

func ev(id, name, data string, retry time.Duration) Event {
	return Event{ID: id, Name: name, Data: []byte(data), Retry: retry}
}

// TestReadGrammar holds the reader to the event-stream grammar of WHATWG HTML §9.2.6 on what
// servers get wrong or do differently: the three line endings, mixed; a byte order mark; a
// NUL in id:; retry: values that are not a number of milliseconds; a last event the stream
// cut off. Every input is read whole, one byte at a time and in halves, with the same result.
func TestReadGrammar(t *testing.T) {
	const none = -1
	tests := []struct {
		name string
		in   string
		want []Event
	}{
		{"LF", "id: 1\nevent: a\ndata: x\n\n", []Event{ev("1", "a", "x", none)}},
		{"CRLF", "id: 1\r\nevent: a\r\ndata: x\r\n\r\n", []Event{ev("1", "a", "x", none)}},
		{"CR", "id: 1\revent: a\rdata: x\r\r", []Event{ev("1", "a", "x", none)}},
		{"mixed", "data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r", []Event{ev("", "", "a\nb\nc", none), ev("", "", "d", none)}},
		{"CR then LF is one line end", "data: a\r\n\ndata: b\n\n", []Event{ev("", "", "a", none), ev("", "", "b", none)}},
		{"BOM", "\xEF\xBB\xBFdata: x\n\n", []Event{ev("", "", "x", none)}},
		{"BOM then CRLF", "\xEF\xBB\xBFid: 7\r\ndata: x\r\n\r\n", []Event{ev("7", "", "x", none)}},
		{"only the first BOM", "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n", []Event{ev("", "", "y", none)}},
		{"BOM past the start", "data: x\n\n\xEF\xBB\xBFdata: y\n\n", []Event{ev("", "", "x", none)}},
		{"NUL in id", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []Event{ev("1", "", "a", none), ev("1", "", "b", none)}},
		{"NUL elsewhere", "event: a\x00b\ndata: c\x00d\n\n", []Event{ev("", "a\x00b", "c\x00d", none)}},
		{"empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\n", []Event{ev("1", "", "a", none), ev("", "", "b", none)}},
		{"retry", "retry: 3000\ndata: a\n\n", []Event{ev("", "", "a", 3*time.Second)}},
		{"retry not digits", "retry: 3s\ndata: a\n\nretry: -5\ndata: b\n\nretry: +5\ndata: c\n\nretry:  5\ndata: d\n\nretry: 5 \ndata: e\n\nretry: 0x10\ndata: f\n\nretry:\ndata: g\n\n",
			[]Event{ev("", "", "a", none), ev("", "", "b", none), ev("", "", "c", none), ev("", "", "d", none), ev("", "", "e", none), ev("", "", "f", none), ev("", "", "g", none)}},
		{"retry too large", "retry: 99999999999999999999\ndata: a\n\n", []Event{ev("", "", "a", none)}},
		{"retry zero", "retry: 0\ndata: a\n\n", []Event{ev("", "", "a", 0)}},
		{"last event cut mid-line", "data: a\n\ndata: b", []Event{ev("", "", "a", none)}},
		{"last event cut after its line", "data: a\n\nid: 2\ndata: b\n", []Event{ev("", "", "a", none)}},
		{"last event cut after CR", "data: a\r\rdata: b\r", []Event{ev("", "", "a", none)}},
		{"last event ends in CR CR", "data: a\r\r", []Event{ev("", "", "a", none)}},
		{"comments and unknown fields", ": hi\nfoo: bar\ndata: a\n:\n\n", []Event{ev("", "", "a", none)}},
		{"field without colon", "data\ndata\n\n", []Event{ev("", "", "\n", none)}},
		{"no space after colon", "data:x\nevent:e\n\n", []Event{ev("", "e", "x", none)}},
		{"two spaces keep one", "data:  x\n\n", []Event{ev("", "", " x", none)}},
		{"no data, no event", "id: 5\nevent: a\n\ndata: b\n\n", []Event{ev("5", "", "b", none)}},
	}
	chunkings := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r },
		"bytes": iotest.OneByteReader,
		"half":  iotest.HalfReader,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for how, chunk := range chunkings {
				got, err := readAll(chunk(strings.NewReader(tt.in)))
				if err != nil {
					t.Fatalf("%s: Read = %v", how, err)
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Errorf("%s: events (-want +got):\n%s", how, d)
				}
			}
		})
	}
}

// TestReadBOMDoesNotHold: a stream whose first event is shorter than a byte order mark is
// handled without waiting for more bytes.
func TestReadBOMDoesNotHold(t *testing.T) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	got := make(chan Event, 1)
	go func() {
		done <- Read(pr, 1<<10, func(ev Event) bool { got <- ev; return false })
	}()
	if _, err := pw.Write([]byte("data:\n\n")); err != nil {
		t.Fatal(err)
	}
	if ev := <-got; len(ev.Data) != 0 {
		t.Errorf("event %+v; want one with empty data", ev)
	}
	_ = pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestReadTooLarge: an event over the limit ends the read with ErrEventTooLarge, after the
// events before it.
func TestReadTooLarge(t *testing.T) {
	in := "data: a\n\ndata: " + strings.Repeat("x", 2000) + "\n\n"
	got, err := readAll(strings.NewReader(in))
	if !errors.Is(err, ErrEventTooLarge) || len(got) != 1 {
		t.Fatalf("Read = %d events, %v; want 1 and ErrEventTooLarge", len(got), err)
	}
}

// FuzzRead feeds arbitrary bytes to Read whole and one byte at a time: both must end without
// panic and deliver the same events, no more data than the input holds, no id holding NUL.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"\xEF\xBB\xBFid: 1\r\nevent: review.opened\r\ndata: {\"case_id\":\"c\"}\r\n\r\n",
		"id: a\x00b\ndata: x\n\nretry: 12x\ndata: y\r\r",
		"data: a\rdata: b\r\n\ndata: cut",
		"\xEF\xBB",
		"retry: 99999999999999999999\n\n:\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		whole, errWhole := readAll(bytes.NewReader(stream))
		bytewise, errBytes := readAll(iotest.OneByteReader(bytes.NewReader(stream)))
		if (errWhole == nil) != (errBytes == nil) {
			t.Fatalf("whole: %v; one byte at a time: %v", errWhole, errBytes)
		}
		if d := cmp.Diff(whole, bytewise); d != "" {
			t.Fatalf("events differ with the chunking (-whole +bytewise):\n%s", d)
		}
		total := 0
		for _, ev := range whole {
			total += len(ev.Data)
			if strings.ContainsRune(ev.ID, 0) {
				t.Fatalf("id %q holds NUL", ev.ID)
			}
		}
		if total > len(stream) {
			t.Fatalf("delivered %d bytes of data from a %d-byte stream", total, len(stream))
		}
	})
}
