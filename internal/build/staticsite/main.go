// Command staticsite finishes the static site that ./build.sh site builds in a directory:
//
//   - next to every compressible file FILE (by internal/site's Content-Types) it writes
//     FILE.gz (gzip, best compression) and FILE.br (brotli, quality 9), which privopt serve
//     and static hosts that support precompressed files send as they are;
//   - _headers: privopt's security headers (internal/site.SecurityHeaders, the one source of
//     truth) for every path, in the format that Cloudflare (Workers static assets, Pages) and
//     Netlify read;
//   - .assetsignore: keeps the precompressed copies out of a Cloudflare upload (Cloudflare
//     compresses by itself).
//
// Usage: go run ./internal/build/staticsite DIR
//
// Brotli comes from github.com/andybalholm/brotli (pure Go), used here only, at build time:
// neither the app nor any server links it. Quality 9 rather than 11: on app.wasm quality 11
// is about 12% smaller but takes about 15 times as long (30 s), too slow for every build.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/andybalholm/brotli"

	"github.com/privopt/privopt/internal/site"
)

// brotliQuality is the brotli level of FILE.br (0 to 11).
const brotliQuality = 9

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: staticsite DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "staticsite:", err)
		os.Exit(1)
	}
}

// run finishes the site in dir and reports each compressed file's sizes to out.
func run(dir string, out io.Writer) error {
	if err := os.WriteFile(filepath.Join(dir, "_headers"), headersFile(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".assetsignore"), []byte(assetsIgnore), 0o644); err != nil {
		return err
	}
	names, err := compressibleFiles(dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		raw, gz, br, err := precompress(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "staticsite: %-16s %9d bytes raw %9d gzip %9d brotli\n", name, raw, gz, br)
	}
	return nil
}

// assetsIgnore is the .assetsignore file (gitignore syntax) of the site.
const assetsIgnore = `# Cloudflare compresses static assets itself: do not upload the precompressed copies.
*.gz
*.br
`

// headersFile returns the _headers file: the security headers for every path, sorted by name.
func headersFile() []byte {
	names := make([]string, 0, len(site.SecurityHeaders))
	for k := range site.SecurityHeaders {
		names = append(names, k)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("# privopt's security headers (internal/site), written by ./build.sh site.\n/*\n")
	for _, k := range names {
		fmt.Fprintf(&b, "  %s: %s\n", k, site.SecurityHeaders[k])
	}
	return b.Bytes()
}

// compressibleFiles lists the regular files under dir (slash-separated, relative) whose
// Content-Type is worth compressing.
func compressibleFiles(dir string) ([]string, error) {
	var names []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && site.Compressible(site.ContentType(name)) {
			names = append(names, name)
		}
		return nil
	})
	return names, err
}

// precompress writes name.gz and name.br and returns the three sizes. The two encoders run
// in parallel.
func precompress(name string) (raw, gz, br int, err error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return 0, 0, 0, err
	}
	var brBuf bytes.Buffer
	var brErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		w := brotli.NewWriterLevel(&brBuf, brotliQuality)
		if _, brErr = w.Write(data); brErr == nil {
			brErr = w.Close()
		}
	})
	var gzBuf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gzBuf, gzip.BestCompression) // the level is valid
	_, gzErr := w.Write(data)
	if gzErr == nil {
		gzErr = w.Close()
	}
	wg.Wait()
	for _, e := range []error{gzErr, brErr} {
		if e != nil {
			return 0, 0, 0, fmt.Errorf("%s: %w", name, e)
		}
	}
	for ext, b := range map[string][]byte{".gz": gzBuf.Bytes(), ".br": brBuf.Bytes()} {
		if err := os.WriteFile(name+ext, b, 0o644); err != nil {
			return 0, 0, 0, err
		}
	}
	return len(data), gzBuf.Len(), brBuf.Len(), nil
}
