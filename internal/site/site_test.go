package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"
	"testing/fstest"
	"time"
)

var testFS = fstest.MapFS{
	"index.html":     {Data: []byte("<!doctype html><title>t</title>"), ModTime: time.Unix(1, 0)},
	"app.wasm":       {Data: append([]byte("\x00asm"), bytes.Repeat([]byte{1}, 4096)...), ModTime: time.Unix(1, 0)},
	"data/demo.csv":  {Data: []byte("a,b\n1,2\n"), ModTime: time.Unix(1, 0)},
	"sub/index.html": {Data: []byte("sub"), ModTime: time.Unix(1, 0)},
	"image.png":      {Data: []byte("\x89PNG"), ModTime: time.Unix(1, 0)},
}

func get(t *testing.T, h http.Handler, method, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandler(t *testing.T) {
	h := NewHandler(testFS)
	for _, tc := range []struct {
		method, path, accept string
		status               int
		ctype, encoding      string
		body                 string
	}{
		{"GET", "/", "", 200, "text/html; charset=utf-8", "", "<!doctype html><title>t</title>"},
		{"GET", "/index.html", "gzip", 200, "text/html; charset=utf-8", "gzip", "<!doctype html><title>t</title>"},
		{"GET", "/app.wasm", "gzip, deflate, br", 200, "application/wasm", "gzip", string(testFS["app.wasm"].Data)},
		{"GET", "/app.wasm", "gzip;q=0", 200, "application/wasm", "", string(testFS["app.wasm"].Data)},
		{"GET", "/app.wasm", "br", 200, "application/wasm", "", string(testFS["app.wasm"].Data)},
		{"GET", "/data/demo.csv", "*", 200, "text/csv; charset=utf-8", "gzip", "a,b\n1,2\n"},
		{"GET", "/image.png", "gzip", 200, "image/png", "", "\x89PNG"},
		{"GET", "/sub/", "", 200, "text/html; charset=utf-8", "", "sub"},
		{"GET", "/../../etc/passwd", "", 404, "", "", ""},
		{"GET", "/missing.js", "", 404, "", "", ""},
		{"POST", "/", "", 405, "", "", ""},
		{"HEAD", "/app.wasm", "", 200, "application/wasm", "", ""},
	} {
		res := get(t, h, tc.method, tc.path, map[string]string{"Accept-Encoding": tc.accept})
		if res.StatusCode != tc.status {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.path, res.StatusCode, tc.status)
			continue
		}
		for k, v := range SecurityHeaders {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s %s: %s = %q, want %q", tc.method, tc.path, k, got, v)
			}
		}
		if tc.status != 200 {
			continue
		}
		if got := res.Header.Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s %s: Content-Type %q, want %q", tc.method, tc.path, got, tc.ctype)
		}
		if got := res.Header.Get("Content-Encoding"); got != tc.encoding {
			t.Errorf("%s %s (Accept-Encoding %q): Content-Encoding %q, want %q", tc.method, tc.path, tc.accept, got, tc.encoding)
		}
		body, _ := io.ReadAll(res.Body)
		if tc.encoding == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", tc.path, err)
			}
			body, _ = io.ReadAll(zr)
		}
		if string(body) != tc.body {
			t.Errorf("%s %s: body %q, want %q", tc.method, tc.path, body, tc.body)
		}
	}
}

func TestHandlerRevalidates(t *testing.T) {
	h := NewHandler(testFS)
	first := get(t, h, "GET", "/app.wasm", map[string]string{"Accept-Encoding": "gzip"})
	etag := first.Header.Get("ETag")
	if etag == "" || first.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("ETag %q, Cache-Control %q", etag, first.Header.Get("Cache-Control"))
	}
	again := get(t, h, "GET", "/app.wasm", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: status %d, want 304", again.StatusCode)
	}
	plain := get(t, h, "GET", "/app.wasm", map[string]string{"If-None-Match": etag})
	if plain.StatusCode != http.StatusOK {
		t.Errorf("the gzip ETag matched the identity encoding: status %d", plain.StatusCode)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "br, gzip": true, "gzip;q=0": false, "gzip; q=0.000": false,
		"gzip;q=0.5": true, "*": true, "*;q=0": false, "deflate": false, "x-gzip2": false,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

// The page repeats the policy in a meta tag, for static hosts that cannot set headers.
func TestIndexHTMLCarriesThePolicy(t *testing.T) {
	page, err := os.ReadFile("../../index.html")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindSubmatch(page)
	if m == nil {
		t.Fatal("index.html has no Content-Security-Policy meta tag")
	}
	if string(m[1]) != ContentSecurityPolicy {
		t.Errorf("index.html's policy %q differs from the served one %q", m[1], ContentSecurityPolicy)
	}
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).Match(page) {
		t.Error("index.html loads a resource from another origin")
	}
}
