package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/privopt/privopt/internal/site"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"index.html":  []byte("<!doctype html><title>privopt</title>"),
		"app.wasm":    append([]byte("\x00asm"), bytes.Repeat([]byte("wasm code "), 5000)...),
		"app.css":     []byte(strings.Repeat(".a { color: red; }\n", 50)),
		"image.png":   []byte("\x89PNG not compressible"),
		"sub/deep.js": []byte("'use strict';\n"),
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Twice: a second run rewrites the same files and compresses no compressed file.
	for range 2 {
		if err := run(dir, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		compressible := site.Compressible(site.ContentType(name))
		for ext, decode := range map[string]func([]byte) ([]byte, error){
			".gz": func(b []byte) ([]byte, error) {
				r, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					return nil, err
				}
				return io.ReadAll(r)
			},
			".br": func(b []byte) ([]byte, error) { return io.ReadAll(brotli.NewReader(bytes.NewReader(b))) },
		} {
			enc, err := os.ReadFile(path + ext)
			if !compressible {
				if err == nil {
					t.Errorf("%s%s written for an incompressible type", name, ext)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s%s: %v", name, ext, err)
				continue
			}
			if got, err := decode(enc); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s%s does not decode to the file (%v)", name, ext, err)
			}
			if name == "app.wasm" && len(enc) > len(data)/10 {
				t.Errorf("%s%s: %d bytes for %d repetitive bytes", name, ext, len(enc), len(data))
			}
		}
	}
	for _, name := range []string{"app.wasm.gz.gz", "app.wasm.br.br", "app.wasm.gz.br"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s written", name)
		}
	}

	// _headers holds exactly the security headers, for every path.
	headers, err := os.ReadFile(filepath.Join(dir, "_headers"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var paths []string
	for sc := bufio.NewScanner(bytes.NewReader(headers)); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "  "):
			k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if !ok {
				t.Errorf("_headers: malformed line %q", line)
			}
			got[k] = v
		default:
			paths = append(paths, line)
		}
	}
	if len(paths) != 1 || paths[0] != "/*" {
		t.Errorf("_headers: paths %q, want [/*]", paths)
	}
	if len(got) != len(site.SecurityHeaders) {
		t.Errorf("_headers: %d headers, want %d", len(got), len(site.SecurityHeaders))
	}
	for k, v := range site.SecurityHeaders {
		if got[k] != v {
			t.Errorf("_headers: %s = %q, want %q", k, got[k], v)
		}
	}
	ignore, err := os.ReadFile(filepath.Join(dir, ".assetsignore"))
	if err != nil || !strings.Contains(string(ignore), "\n*.gz\n*.br\n") {
		t.Errorf(".assetsignore: %q, %v", ignore, err)
	}
}
