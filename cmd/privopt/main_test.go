package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageAndExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, errOu string
	}{
		{nil, 2, "", "Usage: privopt COMMAND"},
		{[]string{"help"}, 0, "Commands:", ""},
		{[]string{"--help"}, 0, "serve", ""},
		{[]string{"help", "serve"}, 0, "Usage: privopt serve", ""},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"version"}, 0, "privopt 0.", ""},
		{[]string{"version", "--help"}, 0, "Usage: privopt version", ""},
		{[]string{"version", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"serve", "--help"}, 0, "--addr", ""},
		{[]string{"serve", "--bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"serve", "--addr", "nonsense"}, 2, "", `--addr "nonsense"`},
		{[]string{"serve", "--prefix", "course/", "--addr", "127.0.0.1:0"}, 2, "", `--prefix: site: the prefix "course/" is not a clean URL path`},
		{[]string{"serve", "--dir", "/nonexistent-privopt-dir", "--addr", "127.0.0.1:0"}, 1, "", "build the page first"},
		{[]string{"account", "--mu", "1", "--eps", "1"}, 0, `"delta": 0.1269367375067`, ""},
		{[]string{"account", "--eps", "1", "--delta", "1e-5", "--sensitivity", "1"}, 0, `"sigma": 3.73063163481`, ""},
		{[]string{"account", "--tradeoff", "--mu", "1", "--alpha", "0.05"}, 0, `"tradeoff": 0.74048897715`, ""},
		{[]string{"account", "--compose-mu", "0.3,0.4", "--delta", "1e-6"}, 0, `"epsilon": 2.25408465021`, ""},
		{[]string{"account", "--pure-eps", "1", "--eps", "2"}, 0, `"delta": 0`, ""},
		{[]string{"account", "--mu", "1", "--delta", "1e-6"}, 0, `"canonne_kamath_steinke_2020"`, ""},
		{[]string{"account", "--help"}, 0, "--compose-mu", ""},
		{[]string{"account", "--mu", "0", "--eps", "1"}, 2, "", "mu must be positive"},
		{[]string{"account", "--mu", "nan", "--eps", "1"}, 2, "", "finite number"},
		{[]string{"account", "--mu", "1", "--delta", "2"}, 2, "", "delta must be in (0, 1)"},
		{[]string{"account", "--eps", "-1", "--delta", "0.1"}, 2, "", "eps must be at least 0"},
		{[]string{"account", "--frob", "1"}, 2, "", "flag provided but not defined: -frob"},
		{[]string{"account"}, 2, "", "nothing to compute"},
		{[]string{"audit", "--help"}, 0, "--long", ""},
		{[]string{"audit", "--mech", "magic"}, 2, "", `no audit for "magic"`},
		{[]string{"audit", "--runs", "5"}, 2, "", "--runs must be at least 10"},
		{[]string{"audit", "--seed", "0"}, 2, "", "--seed must be at least 1"},
		{[]string{"audit", "--level", "1"}, 2, "", "--level must be in (0, 1)"},
		{[]string{"audit", "--mech", "outpert", "--runs", "300"}, 0, "huber, add/remove n=9/10 N=10  330", "auditing outpert"},
		{[]string{"audit", "--mech", "outpert", "--runs", "300", "--json"}, 0, `"violation": false`, ""},
		{[]string{"bench", "--help"}, 0, "--merge", ""},
		{[]string{"bench", "--runs", "0"}, 2, "", "--runs must be at least 1"},
		{[]string{"bench", "--eps", "1,x"}, 2, "", `--eps: "x" is not a positive number`},
		{[]string{"bench", "--mech", "magic"}, 2, "", `unknown mechanism "magic"`},
		{[]string{"bench", "--mech", "rem:Sampler"}, 2, "", `a setting is SETTING=VALUE, got "Sampler"`},
		{[]string{"bench", "--mech", "rem:Colour=red"}, 2, "", `Colour`},
		{[]string{"bench", "--merge", "a.json"}, 2, "", "--merge needs two or three arguments"},
		{[]string{"bench", "stray"}, 2, "", "arguments go with --merge or --replace"},
		{[]string{"bench", "--replace", "a.json", "b.json"}, 2, "", "--replace needs two arguments, BASE.json NEW.json, and --json OUT.json"},
	} {
		code, out, errOut := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.errOu) {
			t.Errorf("privopt %q: code %d, stdout %q, stderr %q; want code %d, stdout with %q, stderr with %q",
				tc.args, code, out, errOut, tc.code, tc.out, tc.errOu)
		}
		if tc.code == 2 && strings.Count(strings.TrimSpace(errOut), "\n") > 0 && tc.args != nil {
			t.Errorf("privopt %q: a usage error must be one line, got %q", tc.args, errOut)
		}
	}
}

func TestListenAddr(t *testing.T) {
	for _, tc := range []struct{ flag, port, want string }{
		{"", "", "127.0.0.1:8080"},
		{"", "9000", "127.0.0.1:9000"},
		{"127.0.0.1:7000", "9000", "127.0.0.1:7000"},
		{"[::1]:0", "", "[::1]:0"},
	} {
		got, err := listenAddr(tc.flag, tc.port)
		if err != nil || got != tc.want {
			t.Errorf("listenAddr(%q, %q) = %q, %v; want %q", tc.flag, tc.port, got, err, tc.want)
		}
	}
	if _, err := listenAddr("8080", ""); err == nil {
		t.Error("listenAddr accepted an address without a host")
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestServeServesAndStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A symlink in the served folder to a file outside it is not followed.
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"serve", "--dir", dir, "--addr", "127.0.0.1:0"}, &out, &errOut) }()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("serve did not report its address: %q %q", out.String(), errOut.String())
	}
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "hello" || res.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("GET /: %q, headers %v", body, res.Header)
	}
	if res, err = http.Get(url + "leak.txt"); err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || strings.Contains(string(body), "secret") {
		t.Errorf("GET /leak.txt, a symlink out of the folder: status %d, body %q; want 404", res.StatusCode, body)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited with %d after SIGINT: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGINT")
	}
	if strings.Contains(errOut.String(), "warning") {
		t.Errorf("loopback serving warned: %s", errOut.String())
	}
}
