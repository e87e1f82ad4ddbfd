package fakes

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// A Request is one request a fake received.
type Request struct {
	Path   string // the URL path
	Accept string // the Accept header
	// Conditional is set when the request carried If-None-Match or
	// If-Modified-Since.
	Conditional bool
	Status      int // 0 while the request is in progress
	// Bytes counts the body bytes sent, after compression.
	Bytes int64
	// Auth is set when the request carried an Authorization header (basic
	// auth from the URL included).
	Auth bool
}

// recorder is what every fake shares: queued faults per path, a request log,
// ETag revalidation, gzip and byte counting.
type recorder struct {
	mu     sync.Mutex
	faults map[string][]Fault
	log    []Request
	// NoGzip turns off gzip compression of bodies.
	noGzip bool
}

// reply is a fake's answer before faults, validators and compression.
type reply struct {
	status   int
	header   http.Header
	body     []byte
	redirect string // a path to redirect to instead (301)
	// noETag leaves the validator off (error pages, or to test without one).
	noETag bool
}

// Fail queues faults for the next requests to path (such as "/pypi/numba/json").
func (rec *recorder) Fail(path string, fs ...Fault) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.faults == nil {
		rec.faults = map[string][]Fault{}
	}
	rec.faults[path] = append(rec.faults[path], fs...)
}

// Requests returns the paths requested so far.
func (rec *recorder) Requests() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := make([]string, len(rec.log))
	for i, r := range rec.log {
		out[i] = r.Path
	}
	return out
}

// Log returns every request received so far.
func (rec *recorder) Log() []Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Request(nil), rec.log...)
}

// ResetLog forgets the requests received so far.
func (rec *recorder) ResetLog() {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.log = nil
}

// BytesSent returns the body bytes sent so far, after compression.
func (rec *recorder) BytesSent() int64 {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var n int64
	for _, r := range rec.log {
		n += r.Bytes
	}
	return n
}

// countingWriter counts the body bytes written.
type countingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (w *countingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// serve answers r with the reply of answer, after any queued fault.
func (rec *recorder) serve(w http.ResponseWriter, r *http.Request, answer func(*http.Request) reply) {
	cw := &countingWriter{ResponseWriter: w}
	rec.mu.Lock()
	var fault *Fault
	if q := rec.faults[r.URL.Path]; len(q) > 0 {
		fault, rec.faults[r.URL.Path] = &q[0], q[1:]
	}
	// Logged on arrival, so a test sees requests still in progress; status
	// and size are filled in at the end.
	i := len(rec.log)
	rec.log = append(rec.log, Request{
		Path: r.URL.Path, Accept: r.Header.Get("Accept"), Auth: r.Header.Get("Authorization") != "",
		Conditional: r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "",
	})
	rec.mu.Unlock()
	defer func() {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if i < len(rec.log) { // ResetLog may have run meanwhile
			rec.log[i].Status, rec.log[i].Bytes = cw.status, cw.n
		}
	}()

	rep := answer(r)
	if rep.redirect != "" {
		http.Redirect(cw, r, rep.redirect, http.StatusMovedPermanently)
		return
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	if fault != nil && applyFault(cw, w, r, fault, rep.body) {
		return
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	if status == http.StatusOK && !rep.noETag {
		sum := sha256.Sum256(rep.body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			cw.WriteHeader(http.StatusNotModified)
			return
		}
	}
	body := rep.body
	if !rec.noGzip && len(body) > 1024 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") &&
		!strings.Contains(w.Header().Get("Content-Type"), "zstd") && !strings.HasSuffix(r.URL.Path, ".zst") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Add("Vary", "Accept-Encoding")
	}
	cw.WriteHeader(status)
	cw.Write(body)
}

// applyFault answers per f and reports whether the response is complete. raw is
// the underlying writer, for cutting the connection.
func applyFault(w *countingWriter, raw http.ResponseWriter, r *http.Request, f *Fault, body []byte) bool {
	if f.Hang > 0 {
		select {
		case <-time.After(f.Hang):
		case <-r.Context().Done():
			return true
		}
	}
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	switch {
	case f.Redirect != "":
		http.Redirect(w, r, f.Redirect, http.StatusFound)
		return true
	case f.Drip > 0:
		w.Header().Del("Content-Length")
		w.WriteHeader(max(f.Status, http.StatusOK))
		for i := range body {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return true
			}
			http.NewResponseController(raw).Flush()
			select {
			case <-time.After(f.Drip):
			case <-r.Context().Done():
				return true
			}
		}
		return true
	case f.Pad > 0:
		w.Header().Del("Content-Encoding")
		if !f.NoLength {
			w.Header().Set("Content-Length", fmt.Sprint(max(f.Pad, int64(len(body)))))
		}
		w.WriteHeader(http.StatusOK)
		if f.NoLength {
			http.NewResponseController(raw).Flush() // chunked, even for a short body
		}
		writePadded(w, body, f.Pad)
		return true
	case f.GzipBomb > 0:
		w.Header().Del("Content-Length")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusOK)
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression)
		if writePadded(zw, body, f.GzipBomb) == nil {
			zw.Close()
		}
		return true
	case f.Endless:
		w.Header().Del("Content-Length")
		w.Header().Del("Content-Encoding")
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(body); err != nil {
			return true
		}
		zeros := make([]byte, 32<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(zeros); err != nil {
				return true
			}
		}
		return true
	case f.Truncate:
		w.Header().Del("Content-Encoding")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/2])
		if h, ok := raw.(http.Hijacker); ok {
			if conn, _, err := h.Hijack(); err == nil {
				conn.Close()
			}
		}
		return true
	case f.Body != "" || f.Status != 0:
		if strings.HasPrefix(f.Body, "<") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.WriteHeader(max(f.Status, http.StatusOK))
		w.Write([]byte(f.Body))
		return true
	}
	return f.Hang > 0 && r.Context().Err() != nil
}

// writePadded writes body, then spaces up to size bytes in all, stopping at
// the first error (the client went away).
func writePadded(w io.Writer, body []byte, size int64) error {
	if _, err := w.Write(body); err != nil {
		return err
	}
	pad := bytes.Repeat([]byte(" "), 64<<10)
	for left := size - int64(len(body)); left > 0; left -= int64(len(pad)) {
		if _, err := w.Write(pad[:min(left, int64(len(pad)))]); err != nil {
			return err
		}
	}
	return nil
}
