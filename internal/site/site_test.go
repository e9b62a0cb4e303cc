package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
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

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header, coding string
		want           bool
	}{
		{"", "gzip", false}, {"gzip", "gzip", true}, {"GZIP", "gzip", true}, {"br, gzip", "gzip", true},
		{"gzip;q=0", "gzip", false}, {"gzip; q=0.000", "gzip", false}, {"gzip;q=0.5", "gzip", true},
		{"*", "gzip", true}, {"*;q=0", "gzip", false}, {"deflate", "gzip", false}, {"x-gzip2", "gzip", false},
		{"gzip, deflate, br", "br", true}, {"br;q=0, gzip", "br", false}, {"gzip", "br", false},
		{"*, br;q=0", "br", false}, {"br;q=0.1, *;q=0", "br", true}, {"*;q=0, gzip", "gzip", true},
	} {
		if got := accepts(tc.header, tc.coding); got != tc.want {
			t.Errorf("accepts(%q, %q) = %v, want %v", tc.header, tc.coding, got, tc.want)
		}
	}
}

// Precompressed FILE.gz and FILE.br are sent as they are when they are not older than FILE.
func TestPrecompressed(t *testing.T) {
	script := []byte(strings.Repeat("console.log('privopt');\n", 100))
	var fromBuild bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&fromBuild, gzip.BestSpeed)
	zw.Name = "written by the build" // makes these bytes differ from the handler's own gzip
	zw.Write(script)
	zw.Close()
	brotli := []byte("brotli bytes of app.js") // the handler sends them without decoding
	old, now := time.Unix(1, 0), time.Unix(2, 0)
	root := fstest.MapFS{
		"app.js":       {Data: script, ModTime: now},
		"app.js.gz":    {Data: fromBuild.Bytes(), ModTime: now},
		"app.js.br":    {Data: brotli, ModTime: now},
		"stale.js":     {Data: script, ModTime: now},
		"stale.js.gz":  {Data: fromBuild.Bytes(), ModTime: old},
		"stale.js.br":  {Data: brotli, ModTime: old},
		"image.png":    {Data: []byte("\x89PNG"), ModTime: now},
		"image.png.br": {Data: brotli, ModTime: now},
	}
	h := NewHandler(root)
	for _, tc := range []struct {
		path, accept, encoding string
		body                   []byte // nil: the handler's own gzip of the file
	}{
		{"/app.js", "gzip, deflate, br", "br", brotli},
		{"/app.js", "gzip", "gzip", fromBuild.Bytes()},
		{"/app.js", "br;q=0, gzip", "gzip", fromBuild.Bytes()},
		{"/app.js", "", "", script},
		{"/stale.js", "gzip, br", "gzip", nil},
		{"/image.png", "br", "", []byte("\x89PNG")},
	} {
		res := get(t, h, "GET", tc.path, map[string]string{"Accept-Encoding": tc.accept})
		body, _ := io.ReadAll(res.Body)
		if got := res.Header.Get("Content-Encoding"); res.StatusCode != 200 || got != tc.encoding {
			t.Errorf("%s (Accept-Encoding %q): status %d, Content-Encoding %q, want %q", tc.path, tc.accept, res.StatusCode, got, tc.encoding)
			continue
		}
		if tc.body == nil {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("%s: %v", tc.path, err)
			}
			if zr.Name != "" {
				t.Errorf("%s: the stale precompressed file was sent", tc.path)
			}
			if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, script) {
				t.Errorf("%s: the gzip body does not decode to the file", tc.path)
			}
		} else if !bytes.Equal(body, tc.body) {
			t.Errorf("%s (Accept-Encoding %q): body %.40q, want %.40q", tc.path, tc.accept, body, tc.body)
		}
	}
	// A rebuilt FILE.br is picked up without restarting the server.
	root["app.js.br"] = &fstest.MapFile{Data: []byte("rebuilt"), ModTime: time.Unix(3, 0)}
	res := get(t, h, "GET", "/app.js", map[string]string{"Accept-Encoding": "br"})
	if body, _ := io.ReadAll(res.Body); string(body) != "rebuilt" {
		t.Errorf("after rebuilding app.js.br: body %q", body)
	}
}

func TestUnder(t *testing.T) {
	h, err := Under("/course/privopt/", NewHandler(testFS))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path     string
		status   int
		body     string
		location string
	}{
		{"/course/privopt/", 200, "<!doctype html><title>t</title>", ""},
		{"/course/privopt/?embed=curve", 200, "<!doctype html><title>t</title>", ""},
		{"/course/privopt/data/demo.csv", 200, "a,b\n1,2\n", ""},
		{"/course/privopt", 301, "", "/course/privopt/"},
		{"/course/privopt?mu=2", 301, "", "/course/privopt/?mu=2"},
		{"/", 404, "", ""},
		{"/index.html", 404, "", ""},
		{"/course/privopt/../../index.html", 404, "", ""},
		{"/course/privopt/sub/../index.html", 200, "<!doctype html><title>t</title>", ""},
		{"/course/../course/privopt/", 200, "<!doctype html><title>t</title>", ""},
		{"/course/privopt2/index.html", 404, "", ""},
	} {
		res := get(t, h, "GET", tc.path, nil)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != tc.status || tc.status == 200 && string(body) != tc.body || res.Header.Get("Location") != tc.location {
			t.Errorf("%s: status %d, body %.30q, Location %q; want %d, %q, %q", tc.path, res.StatusCode, body, res.Header.Get("Location"), tc.status, tc.body, tc.location)
		}
		if got := res.Header.Get("Content-Security-Policy"); got != ContentSecurityPolicy {
			t.Errorf("%s: no security headers", tc.path)
		}
	}
	plain := NewHandler(testFS)
	if root, err := Under("/", plain); err != nil || root != plain {
		t.Errorf(`Under("/") = %v, %v; want the handler itself`, root, err)
	}
	for _, bad := range []string{"", "course", "/course", "course/", "//", "/a//b/", "/a/../b/", "/a/./", "/a?b/", "/a%2f/"} {
		if _, err := Under(bad, plain); err == nil {
			t.Errorf("Under(%q) accepted", bad)
		}
	}
}

// The pages (the app and the light curve widget) repeat the policy in a meta tag, for static
// hosts that cannot set headers.
func TestPagesCarryThePolicy(t *testing.T) {
	for _, name := range []string{"index.html", "widget.html"} {
		page, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindSubmatch(page)
		if m == nil {
			t.Fatalf("%s has no Content-Security-Policy meta tag", name)
		}
		if string(m[1]) != ContentSecurityPolicy {
			t.Errorf("%s's policy %q differs from the served one %q", name, m[1], ContentSecurityPolicy)
		}
		if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).Match(page) {
			t.Errorf("%s loads a resource from another origin", name)
		}
		if !regexp.MustCompile(`<meta name="referrer" content="no-referrer">`).Match(page) {
			t.Errorf("%s has no referrer policy meta tag", name)
		}
	}
}

// TestWarm: Warm reads and compresses every file ahead of its first request (not the
// precompressed variants themselves), and what it cached is what a request then gets.
func TestWarm(t *testing.T) {
	root := fstest.MapFS{
		"index.html":  {Data: []byte("<!doctype html>"), ModTime: time.Unix(1, 0)},
		"app.wasm":    testFS["app.wasm"],
		"app.wasm.gz": {Data: []byte("precompressed"), ModTime: time.Unix(2, 0)},
		"sub/a.js":    {Data: []byte("x"), ModTime: time.Unix(1, 0)},
	}
	h := NewHandler(root)
	h.Warm()
	var cached []string
	for name, f := range h.cache {
		cached = append(cached, name)
		if f.gz == nil {
			t.Errorf("%s: no gzip encoding cached", name)
		}
	}
	slices.Sort(cached)
	if want := []string{"app.wasm", "index.html", "sub/a.js"}; !slices.Equal(cached, want) {
		t.Errorf("cached %v, want %v", cached, want)
	}
	resp := get(t, h, http.MethodGet, "/app.wasm", map[string]string{"Accept-Encoding": "gzip"})
	if body, _ := io.ReadAll(resp.Body); string(body) != "precompressed" {
		t.Errorf("app.wasm served %q, want its precompressed variant", body)
	}
}
