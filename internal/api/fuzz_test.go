package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzHandler sends arbitrary query strings to each endpoint: the handler never answers 500
// and always writes valid JSON, an error with a message for every status other than 200.
func FuzzHandler(f *testing.F) {
	for _, seed := range []struct {
		path  uint8 // index into paths
		query string
	}{
		{0, "mu=1&delta=1e-320"},
		{2, "mu=1e155&delta=1e-6"},
		{1, "eps=1&delta=1e-5&sensitivity=1e308"},
		{2, "compose-mu=1e308,1e308&delta=1e-6"},
		{0, "mu=1&eps=1&delta=1e-5"},
		{1, "eps=0.5&delta=1e-6&sensitivity=0.02"},
		{2, "tradeoff&mu=1&alpha=0.05"},
		{2, "pure-eps=1&eps=0.5"},
		{0, "mu=5e-324&eps=1e308"},
		{0, "mu=1.7976931348623157e308&eps=-1e308&delta=0.5"},
		{0, "mu=5e-324&delta=2.2250738585072014e-308"},
		{1, "eps=1e308&delta=0.5&sensitivity=5e-324"},
	} {
		f.Add(seed.path, seed.query)
	}
	paths := []string{"/api/curve", "/api/calibrate", "/api/account"}
	f.Fuzz(func(t *testing.T, path uint8, query string) {
		target := &url.URL{Path: paths[int(path)%len(paths)], RawQuery: query}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = target
		rec := httptest.NewRecorder()
		Handler{}.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("%s: status 500: %s", target, body)
		}
		if !json.Valid(body) {
			t.Fatalf("%s: status %d, invalid JSON: %q", target, rec.Code, body)
		}
		if rec.Code != http.StatusOK {
			var e struct{ Error string }
			if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
				t.Fatalf("%s: status %d without an error message: %s", target, rec.Code, body)
			}
		}
	})
}
