// Package site serves privopt's built page (dist/) over HTTP with the security headers the
// app promises: a Content-Security-Policy that allows nothing but the page's own origin (and
// WebAssembly compilation), no MIME sniffing, no referrer, and no browser feature the app
// does not use. Compressible files are sent gzip-encoded to browsers that accept it.
package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ContentSecurityPolicy is sent with every response and repeated in index.html's meta tag
// (a test keeps the two equal). Everything comes from the page's own origin; WebAssembly may
// be compiled ('wasm-unsafe-eval'); no inline script or style, no plugin, no form target.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'"

// PermissionsPolicy disables the browser features privopt does not use.
const PermissionsPolicy = "accelerometer=(), autoplay=(), camera=(), display-capture=(), " +
	"encrypted-media=(), fullscreen=(), geolocation=(), gyroscope=(), magnetometer=(), " +
	"microphone=(), midi=(), payment=(), picture-in-picture=(), publickey-credentials-get=(), " +
	"screen-wake-lock=(), usb=(), xr-spatial-tracking=()"

// SecurityHeaders are the headers every response carries.
var SecurityHeaders = map[string]string{
	"Content-Security-Policy":    ContentSecurityPolicy,
	"X-Content-Type-Options":     "nosniff",
	"Referrer-Policy":            "no-referrer",
	"Permissions-Policy":         PermissionsPolicy,
	"Cross-Origin-Opener-Policy": "same-origin",
}

// contentTypes fixes the types the app depends on, whatever the system's MIME tables say.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".wasm": "application/wasm",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".csv":  "text/csv; charset=utf-8",
	".txt":  "text/plain; charset=utf-8",
}

// ContentType returns the Content-Type of a file name.
func ContentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// compressible reports whether gzip is worth applying to a file of this type.
func compressible(contentType string) bool {
	switch {
	case strings.HasPrefix(contentType, "text/"),
		strings.HasPrefix(contentType, "application/wasm"),
		strings.HasPrefix(contentType, "application/json"),
		strings.HasPrefix(contentType, "image/svg+xml"):
		return true
	}
	return false
}

// file is a cached file of the site: its bytes, its gzip encoding and their entity tags.
type file struct {
	modTime  time.Time
	size     int64
	raw, gz  []byte
	etag     string
	etagGzip string
}

// Handler serves the files of root. "/" and directories serve their index.html. Only GET and
// HEAD are allowed. Files are read once and kept in memory until they change on disk.
type Handler struct {
	root  fs.FS
	mu    sync.Mutex
	cache map[string]*file
}

// NewHandler returns a Handler serving root (for example os.DirFS("dist")).
func NewHandler(root fs.FS) *Handler {
	return &Handler{root: root, cache: make(map[string]*file)}
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for k, v := range SecurityHeaders {
		w.Header().Set(k, v)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	f, err := h.load(name)
	if errors.Is(err, errIsDir) {
		name = path.Join(name, "index.html")
		f, err = h.load(name)
	}
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	ctype := ContentType(name)
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	body, etag := f.raw, f.etag
	if compressible(ctype) {
		w.Header().Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = f.gz, f.etagGzip
			w.Header().Set("Content-Encoding", "gzip")
		}
	}
	w.Header().Set("ETag", etag) // ServeContent answers If-None-Match with it
	http.ServeContent(w, r, "", f.modTime, bytes.NewReader(body))
}

var errIsDir = errors.New("is a directory")

// load returns the cached file, reading it again when its size or time changed on disk.
func (h *Handler) load(name string) (*file, error) {
	info, err := fs.Stat(h.root, name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, errIsDir
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.cache[name]; ok && f.size == info.Size() && f.modTime.Equal(info.ModTime()) {
		return f, nil
	}
	raw, err := fs.ReadFile(h.root, name)
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // the level is valid
	zw.Write(raw)
	zw.Close()
	f := &file{
		modTime: info.ModTime(), size: info.Size(),
		raw: raw, gz: gz.Bytes(),
		etag: entityTag(raw, ""), etagGzip: entityTag(raw, "-gzip"),
	}
	h.cache[name] = f
	return f, nil
}

func entityTag(content []byte, suffix string) string {
	sum := sha256.Sum256(content)
	return `"` + hex.EncodeToString(sum[:12]) + suffix + `"`
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip: it names gzip or *
// with a quality above zero.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		name, value, found := strings.Cut(strings.TrimSpace(params), "=")
		if !found || strings.TrimSpace(strings.ToLower(name)) != "q" {
			return true
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		return err == nil && q > 0
	}
	return false
}
