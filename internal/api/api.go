// Package api is the data-free JSON API of privopt's Cloudflare Worker (wasm/cfworker), a
// plain net/http handler so that it runs and is tested natively too. It answers
// privacy-accounting questions from numbers in the query string, computed by
// pkg/core/privacy through internal/accounting (the code behind `privopt account`):
//
//	GET /api/curve?mu=M[&eps=E][&delta=D]
//	    δ(ε) of μ-GDP at ε = 0, 0.1, …, 10 and T(α) at α = 0, 0.01, …, 1, with the answers of
//	    `privopt account --mu M --eps E` and `--mu M --delta D` when E and D are given
//	GET /api/calibrate?eps=E&delta=D[&sensitivity=S]
//	    the largest μ meeting (ε, δ) and the smallest σ for sensitivity S: the answer of
//	    `privopt account --eps E --delta D [--sensitivity S]`
//	GET /api/account?NAME=VALUE&...
//	    any query of `privopt account`, with its flag names and exactly its JSON
//
// It never accepts data: a request with a body is refused with 413, a method other than GET
// or HEAD with 405. Invalid parameters, and parameters whose answer is not a finite number,
// get 400 naming the parameter; an unknown path 404; any other failure (a bug) 500; always
// with a JSON body {"error": "..."}. Every response carries the site's security headers
// (internal/site), Access-Control-Allow-Origin: * (the answers depend on the URL alone, so any
// page may read them) and a Cache-Control header.
package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/privopt/privopt/internal/accounting"
	"github.com/privopt/privopt/internal/site"
	"github.com/privopt/privopt/pkg/core/privacy"
)

// Cache-Control values: answers are a pure function of the URL, errors are not worth keeping.
const (
	cacheAnswer = "public, max-age=3600"
	cacheError  = "no-store"
)

// Handler serves the API; its zero value is ready to use.
type Handler struct{}

// ServeHTTP implements http.Handler: it checks the method and the absence of a body, then
// routes the path.
func (Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range site.SecurityHeaders {
		h.Set(k, v)
	}
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, r, http.StatusMethodNotAllowed, "method %s not allowed: the API only answers GET and HEAD", r.Method)
		return
	}
	if hasBody(r) {
		writeError(w, r, http.StatusRequestEntityTooLarge, "the API accepts no request body: it never receives data, only numbers in the query string")
		return
	}
	var answer func(url.Values) (any, error)
	switch r.URL.Path {
	case "/api/curve":
		answer = curve
	case "/api/calibrate":
		answer = calibrate
	case "/api/account":
		answer = account
	default:
		writeError(w, r, http.StatusNotFound, "no such path %q: the API answers /api/curve, /api/calibrate and /api/account", r.URL.Path)
		return
	}
	query, err := parseQuery(r.URL.RawQuery)
	var v any
	if err == nil {
		v, err = answer(query)
	}
	respond(w, r, v, err)
}

// respond sends an answer, or its error: 400 for an accounting.InputError (invalid
// parameters), 500 for any other error and for an answer with a NaN or an infinity, which is
// never sent as a number.
func respond(w http.ResponseWriter, r *http.Request, v any, err error) {
	var in accounting.InputError
	switch {
	case errors.As(err, &in):
		writeError(w, r, http.StatusBadRequest, "%s", in.Msg)
		return
	case err != nil:
		writeError(w, r, http.StatusInternalServerError, "%v", err)
		return
	}
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, "the answer is not a finite number (%v); please report this query", err)
		return
	}
	writeJSON(w, r, http.StatusOK, cacheAnswer, body)
}

// hasBody reports whether a request carries a body: a declared positive length, or an
// unknown one (-1), which is how net/http and syumai/workers report a chunked body.
func hasBody(r *http.Request) bool { return r.ContentLength != 0 }

// parseQuery parses a query string, refusing malformed escapes and repeated names (which
// would otherwise be resolved silently).
func parseQuery(raw string) (url.Values, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, accounting.InputError{Msg: fmt.Sprintf("malformed query string: %v", err)}
	}
	for name, values := range q {
		if len(values) > 1 {
			return nil, accounting.InputError{Msg: fmt.Sprintf("parameter %q is given %d times", name, len(values))}
		}
	}
	return q, nil
}

// writeError sends {"error": msg} with status code.
func writeError(w http.ResponseWriter, r *http.Request, code int, format string, args ...any) {
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{fmt.Sprintf(format, args...)}) // a struct of one string always marshals
	writeJSON(w, r, code, cacheError, body)
}

// writeJSON sends a JSON body (none for HEAD) followed by a newline, as `privopt account` prints it.
func writeJSON(w http.ResponseWriter, r *http.Request, code int, cache string, body []byte) {
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", cache)
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// params converts a query to accounting parameters. "tradeoff" is a flag, as on the command
// line: present with no value or a true value it is set, with a false value it is not.
func params(q url.Values) (accounting.Params, error) {
	p := accounting.Params{}
	for name, values := range q {
		p[name] = values[0]
	}
	if v, ok := p["tradeoff"]; ok && v != "" {
		set, err := strconv.ParseBool(v)
		if err != nil {
			return nil, accounting.InputError{Msg: fmt.Sprintf("tradeoff is a flag: give it no value, true or false, not %q", v)}
		}
		if !set {
			delete(p, "tradeoff")
		}
	}
	return p, nil
}

// account answers /api/account: exactly the query and the JSON of `privopt account` with the
// same parameters (the command's flag names without the dashes).
func account(q url.Values) (any, error) {
	p, err := params(q)
	if err != nil {
		return nil, err
	}
	return accounting.Evaluate(p)
}

// calibrate answers /api/calibrate: the query of `privopt account --eps E --delta D
// [--sensitivity S]`, the largest μ meeting (ε, δ) and the smallest σ for sensitivity S.
func calibrate(q url.Values) (any, error) {
	if err := only(q, "eps", "delta", "sensitivity"); err != nil {
		return nil, err
	}
	if !q.Has("eps") || !q.Has("delta") {
		return nil, accounting.InputError{Msg: "calibrate needs eps and delta (and optionally sensitivity)"}
	}
	return account(q)
}

// only checks that the query names no parameter outside names.
func only(q url.Values, names ...string) error {
	var extra []string
	for name := range q {
		if !slices.Contains(names, name) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return accounting.InputError{Msg: fmt.Sprintf("unknown parameter %q (known here: %s)", extra[0], strings.Join(names, ", "))}
	}
	return nil
}

// curveEpsilons are the ε at which /api/curve samples δ(ε): 0, 0.1, …, 10 (each i/10).
var curveEpsilons = grid(100, 10)

// tradeoffAlphas are the α at which /api/curve samples T(α): 0, 0.01, …, 1 (each i/100).
var tradeoffAlphas = grid(100, 100)

// grid returns i/den for i = 0, …, n: each point the double nearest to the exact fraction.
func grid(n int, den float64) []float64 {
	g := make([]float64, n+1)
	for i := range g {
		g[i] = float64(i) / den
	}
	return g
}

// Curve is the answer of /api/curve: the privacy curve and the tradeoff function of μ-GDP on
// fixed grids, and the answers of `privopt account` at the target ε and δ when they are given.
type Curve struct {
	Query string  `json:"query"`
	Mu    float64 `json:"mu"`
	// Privacy is δ(ε) at ε = 0, 0.1, …, 10.
	Privacy []privacy.CurvePoint `json:"privacy_curve"`
	// Tradeoff is T(α) at α = 0, 0.01, …, 1.
	Tradeoff []TradeoffPoint `json:"tradeoff_curve"`
	// AtEpsilon is the answer of `privopt account --mu M --eps E` (δ at the target ε).
	AtEpsilon *accounting.Result `json:"at_epsilon,omitempty"`
	// AtDelta is the answer of `privopt account --mu M --delta D` (ε at the target δ).
	AtDelta *accounting.Result `json:"at_delta,omitempty"`
	// MeetsTarget reports whether δ(ε) ≤ δ at the target, when both are given.
	MeetsTarget *bool  `json:"meets_target,omitempty"`
	Note        string `json:"note"`
}

// finite returns an InputError naming mu unless every point of the curves is finite.
func (c Curve) finite() error {
	vs := make([]float64, 0, len(c.Privacy)+len(c.Tradeoff))
	for _, p := range c.Privacy {
		vs = append(vs, p.Delta)
	}
	for _, p := range c.Tradeoff {
		vs = append(vs, p.Tradeoff)
	}
	if !accounting.Finite(vs...) {
		return accounting.InputError{Msg: fmt.Sprintf("mu = %g is out of the range where the curves are finite numbers", c.Mu)}
	}
	return nil
}

// TradeoffPoint is one point (α, T(α)) of a tradeoff function: at type I error α, no test
// has a type II error below T(α).
type TradeoffPoint struct {
	Alpha    float64 `json:"alpha"`
	Tradeoff float64 `json:"tradeoff"`
}

// curve answers /api/curve. μ must be finite and positive; the optional eps and delta are
// checked as `privopt account` checks them.
func curve(q url.Values) (any, error) {
	if err := only(q, "mu", "eps", "delta"); err != nil {
		return nil, err
	}
	if !q.Has("mu") {
		return nil, accounting.InputError{Msg: "curve needs mu (and optionally eps and delta)"}
	}
	text := q.Get("mu")
	mu, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	switch {
	case err != nil || math.IsNaN(mu) || math.IsInf(mu, 0):
		return nil, accounting.InputError{Msg: fmt.Sprintf("mu must be a finite number, got %q", text)}
	case !(mu > 0):
		return nil, accounting.InputError{Msg: fmt.Sprintf("mu must be positive, got %g", mu)}
	}
	g := privacy.GDP{Mu: mu}
	c := Curve{Query: "curve", Mu: mu, Privacy: privacy.Sample(g, curveEpsilons),
		Note: "δ(ε) and T(α) of μ-GDP on fixed grids; at_epsilon and at_delta are the answers of privopt account at the target ε and δ"}
	c.Tradeoff = make([]TradeoffPoint, len(tradeoffAlphas))
	for i, a := range tradeoffAlphas {
		c.Tradeoff[i] = TradeoffPoint{Alpha: a, Tradeoff: g.Tradeoff(a)}
	}
	if err := c.finite(); err != nil {
		return nil, err
	}
	for _, target := range []struct {
		name string
		dst  **accounting.Result
	}{{"eps", &c.AtEpsilon}, {"delta", &c.AtDelta}} {
		if !q.Has(target.name) {
			continue
		}
		r, err := accounting.Evaluate(accounting.Params{"mu": text, target.name: q.Get(target.name)})
		if err != nil {
			return nil, err
		}
		*target.dst = &r
	}
	if c.AtEpsilon != nil && c.AtDelta != nil {
		meets := *c.AtEpsilon.Delta <= *c.AtDelta.Delta
		c.MeetsTarget = &meets
	}
	return c, nil
}
