package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStatusWriter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		serve func(w http.ResponseWriter)
		want  int
	}{
		{"write without a header", func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }, http.StatusOK},
		{"first header wins", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusTeapot) // ignored by net/http too
		}, http.StatusAccepted},
		{"header then body", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("gone"))
		}, http.StatusNotFound},
		{"nothing written", func(http.ResponseWriter) {}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			sw := &StatusWriter{ResponseWriter: rec}
			tc.serve(sw)
			if sw.Status != tc.want {
				t.Errorf("Status = %d, want %d", sw.Status, tc.want)
			}
			if err := http.NewResponseController(sw).Flush(); err != nil {
				t.Errorf("Flush through the controller: %v", err)
			}
			if !rec.Flushed {
				t.Error("Flush did not reach the writer beneath")
			}
		})
	}
}
