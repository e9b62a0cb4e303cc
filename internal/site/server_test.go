package site

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewServerTimeouts(t *testing.T) {
	s := NewServer(http.NotFoundHandler()).http
	for name, got := range map[string]time.Duration{
		"ReadHeaderTimeout": s.ReadHeaderTimeout, "ReadTimeout": s.ReadTimeout,
		"WriteTimeout": s.WriteTimeout, "IdleTimeout": s.IdleTimeout,
	} {
		if got <= 0 {
			t.Errorf("%s = %v: connections may be held forever", name, got)
		}
	}
	if s.ReadHeaderTimeout != ReadHeaderTimeout || s.ReadTimeout != ReadTimeout || s.WriteTimeout != WriteTimeout || s.IdleTimeout != IdleTimeout {
		t.Errorf("timeouts %v, %v, %v, %v; want the constants", s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
}

// startServer serves h with NewServer on a loopback port and returns its address.
func startServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(h)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.http.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// TestServerSecurityHeaders: every response carries the security headers once, those
// net/http writes itself for a bad request included, also after earlier responses on a
// keep-alive connection.
func TestServerSecurityHeaders(t *testing.T) {
	h, err := Under("/p/", NewHandler(testFS))
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, h)
	const ok = "GET /p/ HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, tc := range []struct {
		name, request string
		statuses      []int
	}{
		{"malformed request line", "GARBAGE\r\n\r\n", []int{400}},
		{"no Host", "GET /p/ HTTP/1.1\r\n\r\n", []int{400}},
		{"invalid header name", "GET /p/ HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", []int{400}},
		{"HTTP version", "GET /p/ HTTP/2.5\r\nHost: x\r\n\r\n", []int{505}},
		{"transfer encoding", "POST /p/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: bogus\r\n\r\n", []int{501}},
		{"expectation", "GET /p/ HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n", []int{417}},
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", []int{200}},
		{"headers too large", "GET /p/ HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("a", http.DefaultMaxHeaderBytes+8192) + "\r\n\r\n", []int{431}},
		{"keep-alive", ok + "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n" + "POST /p/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" +
			"GET /p HTTP/1.1\r\nHost: x\r\n\r\n" + ok + "GARBAGE\r\n\r\n", []int{200, 404, 405, 301, 200, 400}},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		go io.WriteString(conn, tc.request) // the server may stop reading a request too large
		r := bufio.NewReader(conn)
		for i, want := range tc.statuses {
			res, err := http.ReadResponse(r, &http.Request{Method: http.MethodGet})
			if err != nil {
				t.Errorf("%s: response %d: %v", tc.name, i, err)
				break
			}
			io.Copy(io.Discard, res.Body)
			if res.StatusCode != want {
				t.Errorf("%s: response %d: status %d, want %d", tc.name, i, res.StatusCode, want)
			}
			for k, v := range SecurityHeaders {
				if got := res.Header.Values(k); len(got) != 1 || got[0] != v {
					t.Errorf("%s: response %d (%d): %s = %q, want %q once", tc.name, i, res.StatusCode, k, got, v)
				}
			}
		}
		conn.Close()
	}
}

func TestWithSecurityHeaders(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"HTTP/1.1 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\n" + string(securityHeaderLines) + "\r\n"},
		{"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nbody", "HTTP/1.1 400 Bad Request\r\n" + string(securityHeaderLines) + "Connection: close\r\n\r\nbody"},
		{"HTTP/1.1 200 OK\r\nContent-Security-Policy: x\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Security-Policy: x\r\n\r\n"},
		{"not a response\r\n", "not a response\r\n"},
		{"HTTP/1.1 200", "HTTP/1.1 200"},
	} {
		if got := string(withSecurityHeaders([]byte(tc.in))); got != tc.want {
			t.Errorf("withSecurityHeaders(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
