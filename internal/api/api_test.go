package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/privopt/privopt/internal/accounting"
	"github.com/privopt/privopt/internal/site"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// serve runs one request through the handler.
func serve(method, target string, body io.Reader) *http.Response {
	rec := httptest.NewRecorder()
	Handler{}.ServeHTTP(rec, httptest.NewRequest(method, target, body))
	return rec.Result()
}

// checkHeaders checks the headers every response carries.
func checkHeaders(t *testing.T, what string, res *http.Response, cache string) {
	t.Helper()
	for k, v := range site.SecurityHeaders {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
	for k, v := range map[string]string{
		"Content-Type":                "application/json",
		"Access-Control-Allow-Origin": "*",
		"Cache-Control":               cache,
	} {
		if got := res.Header.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
}

// cliJSON is what `privopt account` prints for the parameters.
func cliJSON(t *testing.T, p accounting.Params) string {
	t.Helper()
	r, err := accounting.Evaluate(p)
	if err != nil {
		t.Fatalf("Evaluate(%v): %v", p, err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The account and calibrate endpoints answer with the exact bytes `privopt account` prints.
func TestAccountAndCalibrateMirrorTheCommand(t *testing.T) {
	for _, tc := range []struct {
		target string
		params accounting.Params // the command's flags
	}{
		{"/api/account?mu=1&eps=1", accounting.Params{"mu": "1", "eps": "1"}},
		{"/api/account?mu=2&delta=1e-6", accounting.Params{"mu": "2", "delta": "1e-6"}},
		{"/api/account?eps=1&delta=1e-5&sensitivity=1", accounting.Params{"eps": "1", "delta": "1e-5", "sensitivity": "1"}},
		{"/api/account?compose-mu=0.3,0.4&delta=1e-6", accounting.Params{"compose-mu": "0.3,0.4", "delta": "1e-6"}},
		{"/api/account?tradeoff&mu=1&alpha=0.05", accounting.Params{"tradeoff": "", "mu": "1", "alpha": "0.05"}},
		{"/api/account?tradeoff=true&mu=1&alpha=0.05", accounting.Params{"tradeoff": "", "mu": "1", "alpha": "0.05"}},
		{"/api/account?tradeoff=false&mu=1&eps=0.5", accounting.Params{"mu": "1", "eps": "0.5"}},
		{"/api/account?pure-eps=1&eps=0.5", accounting.Params{"pure-eps": "1", "eps": "0.5"}},
		{"/api/calibrate?eps=1&delta=1e-5", accounting.Params{"eps": "1", "delta": "1e-5"}},
		{"/api/calibrate?eps=0.5&delta=1e-6&sensitivity=0.02", accounting.Params{"eps": "0.5", "delta": "1e-6", "sensitivity": "0.02"}},
	} {
		res := serve("GET", tc.target, nil)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d: %s", tc.target, res.StatusCode, body)
			continue
		}
		checkHeaders(t, tc.target, res, cacheAnswer)
		if want := cliJSON(t, tc.params); string(body) != want {
			t.Errorf("%s:\n%s\nwant (privopt account):\n%s", tc.target, body, want)
		}
	}
	// The calibration is the one pkg/core/privacy computes, σ = S/μ rounded toward privacy.
	var r accounting.Result
	res := serve("GET", "/api/calibrate?eps=1&delta=1e-5&sensitivity=2", nil)
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil || r.Mu == nil || r.Sigma == nil {
		t.Fatalf("calibrate: %+v, %v", r, err)
	}
	mu, _ := privacy.CalibrateGDP(1, 1e-5)
	sigma, _ := privacy.GaussianSigma(2, 1, 1e-5)
	if *r.Mu != mu || *r.Sigma != sigma || (privacy.GDP{Mu: 2 / *r.Sigma}).Delta(1) > 1e-5 {
		t.Errorf("calibrate: μ %v σ %v, want %v and %v", *r.Mu, *r.Sigma, mu, sigma)
	}
}

func TestCurve(t *testing.T) {
	for _, tc := range []struct {
		target     string
		mu         float64
		eps, delta string // the target, "" when not given
		meets      string // "true", "false" or "" (not both given)
	}{
		{"/api/curve?mu=1", 1, "", "", ""},
		{"/api/curve?mu=0.5&eps=2", 0.5, "2", "", ""},
		{"/api/curve?mu=1&delta=1e-5", 1, "", "1e-5", ""},
		{"/api/curve?mu=1&eps=1&delta=1e-5", 1, "1", "1e-5", "false"},      // δ(1) = 0.127
		{"/api/curve?mu=0.25&eps=1&delta=1e-5", 0.25, "1", "1e-5", "true"}, // below the largest μ 0.268
	} {
		res := serve("GET", tc.target, nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", tc.target, res.StatusCode)
		}
		checkHeaders(t, tc.target, res, cacheAnswer)
		var c Curve
		if err := json.NewDecoder(res.Body).Decode(&c); err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		g := privacy.GDP{Mu: tc.mu}
		if c.Query != "curve" || c.Mu != tc.mu || len(c.Privacy) != 101 || len(c.Tradeoff) != 101 {
			t.Fatalf("%s: query %q, μ %v, %d and %d points", tc.target, c.Query, c.Mu, len(c.Privacy), len(c.Tradeoff))
		}
		for i, p := range c.Privacy {
			if p.Epsilon != float64(i)/10 || p.Delta != g.Delta(p.Epsilon) {
				t.Errorf("%s: point %d is %+v, want δ(%v) = %v", tc.target, i, p, float64(i)/10, g.Delta(p.Epsilon))
			}
		}
		for i, p := range c.Tradeoff {
			if p.Alpha != float64(i)/100 || p.Tradeoff != g.Tradeoff(p.Alpha) {
				t.Errorf("%s: tradeoff point %d is %+v, want T(%v) = %v", tc.target, i, p, float64(i)/100, g.Tradeoff(p.Alpha))
			}
		}
		u, _ := url.Parse(tc.target)
		mu := u.Query().Get("mu")
		for _, at := range []struct {
			name, value string
			got         *accounting.Result
		}{{"eps", tc.eps, c.AtEpsilon}, {"delta", tc.delta, c.AtDelta}} {
			if (at.value == "") != (at.got == nil) {
				t.Errorf("%s: answer at %s present: %v", tc.target, at.name, at.got != nil)
				continue
			}
			if at.got == nil {
				continue
			}
			want, _ := accounting.Evaluate(accounting.Params{"mu": mu, at.name: at.value})
			gotJSON, _ := json.Marshal(at.got)
			wantJSON, _ := json.Marshal(want)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("%s: at %s %s, want %s", tc.target, at.name, gotJSON, wantJSON)
			}
		}
		var meets string
		if c.MeetsTarget != nil {
			meets = map[bool]string{true: "true", false: "false"}[*c.MeetsTarget]
		}
		if meets != tc.meets {
			t.Errorf("%s: meets_target %q, want %q", tc.target, meets, tc.meets)
		}
	}
}

// The API refuses what it does not answer, always with a JSON error and every header.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		body           io.Reader
		status         int
		want           string // in the error message
	}{
		{"POST", "/api/curve?mu=1", strings.NewReader("x,y\n1,2\n"), 405, "only answers GET and HEAD"},
		{"PUT", "/api/account?mu=1&eps=1", nil, 405, "method PUT"},
		{"OPTIONS", "/api/account", nil, 405, "method OPTIONS"},
		{"DELETE", "/", nil, 405, "method DELETE"},
		{"GET", "/api/curve?mu=1", strings.NewReader("secret data"), 413, "accepts no request body"},
		{"GET", "/api/curves?mu=1", nil, 404, `no such path "/api/curves"`},
		{"GET", "/api", nil, 404, "no such path"},
		{"GET", "/index.html", nil, 404, "no such path"},
		{"GET", "/api/curve", nil, 400, "curve needs mu"},
		{"GET", "/api/curve?mu=0", nil, 400, "mu must be positive"},
		{"GET", "/api/curve?mu=-1", nil, 400, "mu must be positive"},
		{"GET", "/api/curve?mu=NaN", nil, 400, "mu must be a finite number"},
		{"GET", "/api/curve?mu=Inf", nil, 400, "mu must be a finite number"},
		{"GET", "/api/curve?mu=", nil, 400, "mu must be a finite number"},
		{"GET", "/api/curve?mu=1&eps=x", nil, 400, "eps must be a finite number"},
		{"GET", "/api/curve?mu=1&delta=1", nil, 400, "delta must be in (0, 1)"},
		{"GET", "/api/curve?mu=1&alpha=0.1", nil, 400, `unknown parameter "alpha"`},
		{"GET", "/api/curve?mu=1&mu=2", nil, 400, `parameter "mu" is given 2 times`},
		{"GET", "/api/curve?mu=%zz", nil, 400, "malformed query string"},
		{"GET", "/api/calibrate?eps=1", nil, 400, "calibrate needs eps and delta"},
		{"GET", "/api/calibrate?eps=1&delta=1e-5&mu=1", nil, 400, `unknown parameter "mu"`},
		{"GET", "/api/calibrate?eps=-1&delta=1e-5", nil, 400, "eps must be at least 0"},
		{"GET", "/api/calibrate?eps=1&delta=1e-5&sensitivity=0", nil, 400, "sensitivity must be positive"},
		{"GET", "/api/account", nil, 400, "nothing to compute"},
		{"GET", "/api/account?bogus=1", nil, 400, `unknown parameter "bogus"`},
		{"GET", "/api/account?mu=1&eps=1&delta=0.1", nil, 400, `"delta" does not go with`},
		{"GET", "/api/account?tradeoff=maybe&mu=1&alpha=0.1", nil, 400, "tradeoff is a flag"},
		{"GET", "/api/account?tradeoff&mu=1", nil, 400, "tradeoff needs mu and alpha"},
	} {
		what := tc.method + " " + tc.target
		res := serve(tc.method, tc.target, tc.body)
		if res.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", what, res.StatusCode, tc.status)
		}
		checkHeaders(t, what, res, cacheError)
		if tc.status == 405 && res.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: Allow %q", what, res.Header.Get("Allow"))
		}
		var e struct{ Error string }
		if err := json.NewDecoder(res.Body).Decode(&e); err != nil || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: error %q (%v), want it to contain %q", what, e.Error, err, tc.want)
		}
	}
}

// Queries whose answer is out of the range of a double, or that no finite answer meets, get a
// 400 naming the parameter and the reason (issue 20, item 8: they used to get a 500).
func TestOutOfRangeQueries(t *testing.T) {
	for _, tc := range []struct{ target, want string }{
		{"/api/curve?mu=1&delta=1e-320", "delta must be at least 2.2250738585072014e-308"},
		{"/api/account?mu=1e155&delta=1e-6", "mu is so large that ε at delta = 1e-06 is not a finite number"},
		{"/api/calibrate?eps=1&delta=1e-5&sensitivity=1e308", "sensitivity/μ is so large that σ is not a finite number"},
		{"/api/account?compose-mu=1e308,1e308&delta=1e-6", "compose-mu is so large that ε at delta = 1e-06 is not a finite number"},
		{"/api/calibrate?eps=100&delta=1e-5&sensitivity=5e-324", "sensitivity/μ is so small that σ is 0"},
	} {
		res := serve("GET", tc.target, nil)
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", tc.target, res.StatusCode)
		}
		checkHeaders(t, tc.target, res, cacheError)
		var e struct{ Error string }
		if err := json.NewDecoder(res.Body).Decode(&e); err != nil || !strings.Contains(e.Error, tc.want) {
			t.Errorf("%s: error %q (%v), want it to contain %q", tc.target, e.Error, err, tc.want)
		}
	}
}

// The curves are checked before they are encoded: a point that is not finite is a 400 naming mu.
func TestCurveFinite(t *testing.T) {
	ok := Curve{Mu: 1, Privacy: []privacy.CurvePoint{{Epsilon: 0, Delta: 0.3}}, Tradeoff: []TradeoffPoint{{Alpha: 0, Tradeoff: 1}}}
	if err := ok.finite(); err != nil {
		t.Errorf("finite curve: %v", err)
	}
	for _, c := range []Curve{
		{Mu: 1, Privacy: []privacy.CurvePoint{{Epsilon: 0, Delta: math.NaN()}}},
		{Mu: 1, Tradeoff: []TradeoffPoint{{Alpha: 0.5, Tradeoff: math.Inf(1)}}},
	} {
		var in accounting.InputError
		if err := c.finite(); !errors.As(err, &in) || !strings.Contains(err.Error(), "mu = 1 is out of the range") {
			t.Errorf("%+v: error %v", c, err)
		}
	}
}

// Through a real server: HEAD has the headers and no body; a chunked body (length unknown)
// and a declared one are refused before the handler reads them.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(Handler{})
	defer srv.Close()
	head, err := http.Head(srv.URL + "/api/curve?mu=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(head.Body)
	head.Body.Close()
	if head.StatusCode != 200 || len(body) != 0 {
		t.Errorf("HEAD: status %d, %d body bytes", head.StatusCode, len(body))
	}
	checkHeaders(t, "HEAD", head, cacheAnswer)
	for _, tc := range []struct {
		name string
		body io.Reader
	}{
		{"chunked", io.MultiReader(strings.NewReader("a,b\n"))}, // unknown length: sent chunked
		{"declared length", strings.NewReader("a,b\n")},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/account?mu=1&eps=1", tc.body)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("GET with a %s body: status %d, want 413", tc.name, res.StatusCode)
		}
	}
}

// A result that is not a finite number, or an error that is not about the input, is a 500
// with a JSON error, never a number or an empty body.
func TestRespondRefusesNonFiniteAnswers(t *testing.T) {
	for _, tc := range []struct {
		v      any
		err    error
		status int
		want   string
	}{
		{Curve{Mu: math.NaN()}, nil, 500, "not a finite number"},
		{TradeoffPoint{Alpha: 0.5, Tradeoff: math.Inf(1)}, nil, 500, "not a finite number"},
		{nil, errors.New("privacy: no ε ≤ 1e6 reaches δ"), 500, "no ε ≤ 1e6"},
		{nil, fmt.Errorf("wrapped: %w", accounting.InputError{Msg: "mu must be positive"}), 400, "mu must be positive"},
	} {
		rec := httptest.NewRecorder()
		respond(rec, httptest.NewRequest("GET", "/api/curve?mu=1", nil), tc.v, tc.err)
		res := rec.Result()
		var e struct{ Error string }
		if err := json.NewDecoder(res.Body).Decode(&e); err != nil || res.StatusCode != tc.status || !strings.Contains(e.Error, tc.want) {
			t.Errorf("respond(%+v, %v): status %d, error %q (%v); want %d with %q", tc.v, tc.err, res.StatusCode, e.Error, err, tc.status, tc.want)
		}
		if res.Header.Get("Cache-Control") != cacheError {
			t.Errorf("respond(%+v, %v): Cache-Control %q", tc.v, tc.err, res.Header.Get("Cache-Control"))
		}
	}
}

// BenchmarkCurve measures the handler's work for /api/curve with a target (202 curve points,
// two accounting queries and the JSON), without the Worker's start-up.
func BenchmarkCurve(b *testing.B) {
	req := httptest.NewRequest("GET", "/api/curve?mu=1&eps=1&delta=1e-5", nil)
	for b.Loop() {
		rec := httptest.NewRecorder()
		Handler{}.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
