package site

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"time"
)

// The server's timeouts, sized for the 2 MB app.wasm over a slow link.
const (
	// ReadHeaderTimeout bounds how long a client may take to send its request headers.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a whole request; the site's requests have no body.
	ReadTimeout = 30 * time.Second
	// WriteTimeout bounds a response: 2 MB in 2 minutes is about 140 kbit/s.
	WriteTimeout = 2 * time.Minute
	// IdleTimeout closes a keep-alive connection that sends no request for this long.
	IdleTimeout = 2 * time.Minute
)

// Server serves a handler over HTTP/1.1 with the timeouts above, and makes every response
// carry the SecurityHeaders, including those net/http writes itself before or instead of
// running the handler: 400 for a malformed request, 431 for headers too large, 501, 505,
// 417, and the answer to "OPTIONS *". net/http writes those straight to the connection
// without a hook, so Server inserts the headers into the first write of each response whose
// header block lacks the Content-Security-Policy.
type Server struct {
	http *http.Server
}

// NewServer returns a Server for h. h should itself set the SecurityHeaders (as Handler and
// Under do), so that its responses pass through unchanged.
func NewServer(h http.Handler) *Server {
	return &Server{http: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		ConnState: func(c net.Conn, state http.ConnState) {
			if sc, ok := c.(*securedConn); ok && state == http.StateIdle {
				sc.atResponse.Store(true) // the previous response is written
			}
		},
	}}
}

// Serve accepts connections on ln and serves them until Shutdown, like http.Server.Serve:
// it always returns a non-nil error, http.ErrServerClosed after Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	return s.http.Serve(securedListener{ln})
}

// Shutdown stops the server gracefully, like http.Server.Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.http.Shutdown(ctx)
}

type securedListener struct{ net.Listener }

func (l securedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	sc := &securedConn{Conn: c}
	sc.atResponse.Store(true)
	return sc, nil
}

// securedConn is a server connection whose next write begins a response when atResponse is
// set: when it is new, and when net/http reports it idle after a response.
type securedConn struct {
	net.Conn
	atResponse atomic.Bool
}

func (c *securedConn) Write(p []byte) (int, error) {
	if !c.atResponse.Swap(false) {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(withSecurityHeaders(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite half-closes a TCP connection, which net/http does after a 431 so that the
// client can read it.
func (c *securedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// securityHeaderLines are the SecurityHeaders as they appear in a response, in sorted order.
var securityHeaderLines = func() []byte {
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(SecurityHeaders)) {
		b.WriteString(k + ": " + SecurityHeaders[k] + "\r\n")
	}
	return b.Bytes()
}()

// withSecurityHeaders returns the start of a response with the SecurityHeaders inserted
// after its status line, or unchanged when its header block has a Content-Security-Policy
// or it does not start with a status line.
func withSecurityHeaders(p []byte) []byte {
	head, _, _ := bytes.Cut(p, []byte("\r\n\r\n"))
	end := bytes.Index(p, []byte("\r\n")) // of the status line
	if !bytes.HasPrefix(p, []byte("HTTP/")) || end < 0 || bytes.Contains(head, []byte("\r\nContent-Security-Policy:")) {
		return p
	}
	return slices.Concat(p[:end+2], securityHeaderLines, p[end+2:])
}
