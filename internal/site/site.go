// Package site serves privopt's built page (dist/) over HTTP with the security headers the
// app promises: a Content-Security-Policy that allows nothing but the page's own origin (and
// WebAssembly compilation), no MIME sniffing, no referrer, and no browser feature the app
// does not use. Compressible files are sent brotli- or gzip-encoded to browsers that accept
// it: from the precompressed FILE.br and FILE.gz that ./build.sh site writes when they are not
// older than FILE (they are trusted to encode it), else gzip-compressed once in memory.
package site

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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

// SecurityHeaders are the headers every response carries. With both cross-origin policies the
// page is cross-origin isolated: its Web Workers may share memory (SharedArrayBuffer), which a
// fit farmed out to several of them uses (web/engine-worker.js); the page loads nothing from
// another origin, so require-corp blocks nothing it uses.
var SecurityHeaders = map[string]string{
	"Content-Security-Policy":      ContentSecurityPolicy,
	"X-Content-Type-Options":       "nosniff",
	"Referrer-Policy":              "no-referrer",
	"Permissions-Policy":           PermissionsPolicy,
	"Cross-Origin-Opener-Policy":   "same-origin",
	"Cross-Origin-Embedder-Policy": "require-corp",
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

// Compressible reports whether compression is worth applying to a file of this Content-Type.
func Compressible(contentType string) bool {
	switch {
	case strings.HasPrefix(contentType, "text/"),
		strings.HasPrefix(contentType, "application/wasm"),
		strings.HasPrefix(contentType, "application/json"),
		strings.HasPrefix(contentType, "image/svg+xml"):
		return true
	}
	return false
}

// file is a cached file of the site: its bytes, its gzip encoding, its brotli encoding (nil
// without a precompressed FILE.br), their entity tags, and the state on disk they were read in.
type file struct {
	stamp                  string
	modTime                time.Time
	raw, gz, br            []byte
	etag, etagGzip, etagBr string
}

// Handler serves the files of root. "/" and directories serve their index.html. Only GET and
// HEAD are allowed. Files are read once and kept in memory until they change on disk.
type Handler struct {
	root  fs.FS
	mu    sync.Mutex
	cache map[string]*file
}

// NewHandler returns a Handler serving root. For a directory, give it the FS of an os.Root
// rather than os.DirFS: an os.Root refuses a symlink that leads out of the directory.
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
	if Compressible(ctype) {
		w.Header().Add("Vary", "Accept-Encoding")
		switch accepted := r.Header.Get("Accept-Encoding"); {
		case f.br != nil && accepts(accepted, "br"):
			body, etag = f.br, f.etagBr
			w.Header().Set("Content-Encoding", "br")
		case accepts(accepted, "gzip"):
			body, etag = f.gz, f.etagGzip
			w.Header().Set("Content-Encoding", "gzip")
		}
	}
	w.Header().Set("ETag", etag) // ServeContent answers If-None-Match with it
	http.ServeContent(w, r, "", f.modTime, bytes.NewReader(body))
}

var errIsDir = errors.New("is a directory")

// load returns the cached file, reading it again when it or its precompressed variants
// changed on disk.
func (h *Handler) load(name string) (*file, error) {
	info, err := fs.Stat(h.root, name)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, errIsDir
	}
	gzInfo, brInfo := h.precompressed(name+".gz", info), h.precompressed(name+".br", info)
	stamp := fmt.Sprint(stampOf(info), stampOf(gzInfo), stampOf(brInfo))
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.cache[name]; ok && f.stamp == stamp {
		return f, nil
	}
	f := &file{stamp: stamp, modTime: info.ModTime()}
	if f.raw, err = fs.ReadFile(h.root, name); err != nil {
		return nil, err
	}
	if gzInfo != nil {
		if f.gz, err = fs.ReadFile(h.root, name+".gz"); err != nil {
			return nil, err
		}
	} else {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // the level is valid
		zw.Write(f.raw)
		zw.Close()
		f.gz = gz.Bytes()
	}
	if brInfo != nil {
		if f.br, err = fs.ReadFile(h.root, name+".br"); err != nil {
			return nil, err
		}
	}
	f.etag, f.etagGzip, f.etagBr = entityTag(f.raw, ""), entityTag(f.raw, "-gzip"), entityTag(f.raw, "-br")
	h.cache[name] = f
	return f, nil
}

// Warm reads every file of the root into the cache, compressing those without a precompressed
// variant, so that no request waits for it later (gzip-compressing app.wasm takes about a
// second). Files that cannot be read now are left to their requests.
func (h *Handler) Warm() {
	fs.WalkDir(h.root, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && path.Ext(name) != ".gz" && path.Ext(name) != ".br" {
			h.load(name)
		}
		return nil
	})
}

// precompressed returns the FileInfo of a precompressed variant of a file, or nil when there
// is none or it is older than the file (stale).
func (h *Handler) precompressed(name string, of fs.FileInfo) fs.FileInfo {
	info, err := fs.Stat(h.root, name)
	if err != nil || !info.Mode().IsRegular() || info.ModTime().Before(of.ModTime()) {
		return nil
	}
	return info
}

// stampOf identifies the state of a file on disk by its size and time ("-" for none).
func stampOf(info fs.FileInfo) string {
	if info == nil {
		return "-"
	}
	return fmt.Sprintf("%d@%d", info.Size(), info.ModTime().UnixNano())
}

func entityTag(content []byte, suffix string) string {
	sum := sha256.Sum256(content)
	return `"` + hex.EncodeToString(sum[:12]) + suffix + `"`
}

// accepts reports whether an Accept-Encoding header allows a content coding: it names the
// coding, or else *, with a quality above zero.
func accepts(header, coding string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != coding && name != "*" {
			continue
		}
		ok := true
		if key, value, found := strings.Cut(strings.TrimSpace(params), "="); found && strings.TrimSpace(strings.ToLower(key)) == "q" {
			q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			ok = err == nil && q > 0
		}
		if name == coding {
			return ok
		}
		star = ok
	}
	return star
}

// CheckPrefix returns an error unless prefix is a URL path prefix that Under accepts: a
// clean absolute path that ends with a slash, without "?", "#" or "%".
func CheckPrefix(prefix string) error {
	clean := path.Clean(prefix)
	if !strings.HasPrefix(prefix, "/") || strings.ContainsAny(prefix, "?#%") || prefix != "/" && (clean == "/" || clean+"/" != prefix) {
		return fmt.Errorf("site: the prefix %q is not a clean URL path that begins and ends with /", prefix)
	}
	return nil
}

// Under serves h under a URL path prefix such as "/course/privopt/" (a clean absolute path
// that ends with a slash; "/" returns h itself), as a static host serves a site copied into a
// subdirectory: a request for a path below the prefix (after removing dot segments) reaches h
// with the prefix replaced by "/"; the prefix without its final slash is redirected to the
// prefix; every other path is 404 with the security headers.
func Under(prefix string, h http.Handler) (http.Handler, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, err
	}
	if prefix == "/" {
		return h, nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clean := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "/") && clean != "/" {
			clean += "/"
		}
		rest, below := strings.CutPrefix(clean, prefix)
		if !below {
			for k, v := range SecurityHeaders {
				w.Header().Set(k, v)
			}
			if clean+"/" == prefix {
				target := prefix
				if r.URL.RawQuery != "" {
					target += "?" + r.URL.RawQuery
				}
				http.Redirect(w, r, target, http.StatusMovedPermanently)
				return
			}
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = "/"+rest, ""
		h.ServeHTTP(w, r2)
	}), nil
}
