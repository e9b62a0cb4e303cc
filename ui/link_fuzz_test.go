package ui

import (
	"math"
	"net/url"
	"testing"

	"github.com/privopt/privopt/internal/demo"
	"github.com/privopt/privopt/internal/fit"
	"github.com/privopt/privopt/pkg/core/data"
)

// parseLink decodes a link's query as the page does: the first value of each parameter.
func parseLink(query string) map[string]string {
	values, _ := url.ParseQuery(query) // the page's URLSearchParams skips what it cannot decode too
	m := map[string]string{}
	for k := range values {
		m[k] = values.Get(k)
	}
	return m
}

// FuzzLinkQuery opens arbitrary links: the page never panics; every numeric field either holds
// a valid value or shows its error; a schema is taken only when it reads back valid; and the
// link the page then shows is stable: opened on a fresh page it gives the same link back.
func FuzzLinkQuery(f *testing.F) {
	s, err := data.LoadSchema(demo.Schema())
	if err != nil {
		f.Fatal(err)
	}
	public, err := encodeSchema(s)
	if err != nil {
		f.Fatal(err)
	}
	s.Columns[0].Derived = []string{"min", "max"}
	derived, err := encodeSchema(s)
	if err != nil {
		f.Fatal(err)
	}
	for _, q := range []string{
		"data=demo&eps=2&schema=" + public,
		"schema=" + derived + "&runs=3",
		"schema=" + public[:len(public)/2],
		"schema=bm90IGpzb24&schema=" + public,
		"schema=%3D%3D&eps=1",
		"",
		"data=demo&eps=0.5&delta=1e-7&nb=add-remove&runs=4&seed=42&mod=adversarial&rho=0.1&rnorm=2&domain=ball&radius=3&mech=rem&opt.Sampler=mala&opt.FastSteps=40",
		"eps=-3&runs=2.5&loss=nonsense&mech=nonsense",
		"mech=outpert-gauss&delta=0&eps=1e309&opt.Frob=1",
		"loss=huber&lossp=NaN&mod=tilted&tilt=%20%20&holdout=0.7",
		"eps=%E2%88%9E&delta=1&runs=1e6&seed=-1&radius=0x10",
		"data=demo&nb=add-remove&pn=5000&mech=outpert-gauss",
		"nb=add-remove&pn=2.5",
		"pn=1e16&nb=add-remove&eps=2",
		"nb=replace-one&pn=%20300",
		"nb=add-remove&pn=",
		"data=demo&eval=10",
		"holdout=0&eval=5",
		"eval=100&holdout=abc",
		"eval=%20&data=demo",
		"data=demo&scale=0",
		"scale=99.5&eval=10",
		"scale=-1&data=demo",
		"scale=20",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		a := NewApp(newTestHost(t, 1))
		a.ApplyQuery(parseLink(query))
		for name, fd := range map[string]*Field{"eps": &a.Eps, "delta": &a.Delta, "runs": &a.Runs, "holdout": &a.Holdout,
			"radius": &a.Radius, "lossp": &a.LossParam, "tilt": &a.Tilt, "rho": &a.Robust, "pn": &a.PublicN, "eval": &a.EvalShare, "scale": &a.ScaleShare} {
			if fd.Err == "" && (math.IsNaN(fd.Value) || math.IsInf(fd.Value, 0)) {
				t.Errorf("%s: %q accepted as %v", name, fd.Text, fd.Value)
			}
		}
		if a.Eps.Err == "" && !(a.Eps.Value > 0) || a.Delta.Err == "" && !(a.Delta.Value >= 0 && a.Delta.Value < 1) {
			t.Errorf("an invalid budget accepted: ε %+v, δ %+v", a.Eps, a.Delta)
		}
		if n := a.spec().PublicN; n < 0 || n > fit.MaxPublicN || n != 0 && !a.AddRemove() {
			t.Errorf("the spec declares N = %d under %s (field %+v)", n, a.Neighbouring, a.PublicN)
		}
		if s := a.spec().EvalShare; !(s >= 0 && s < 1) || s != 0 && !a.EvalOffered() {
			t.Errorf("the spec spends %v on a private evaluation (offered %v, field %+v)", s, a.EvalOffered(), a.EvalShare)
		}
		if s := a.spec().ScaleShare; !(s >= 0 && s < 1) || s != 0 && !a.ScaleOffered() {
			t.Errorf("the spec spends %v on private ranges (offered %v, field %+v)", s, a.ScaleOffered(), a.ScaleShare)
		}
		if a.pendingSchema != nil && a.pendingSchema.Validate() != nil {
			t.Errorf("an invalid schema taken from %q", query)
		}
		link := a.Query()
		b := NewApp(newTestHost(t, 1))
		b.ApplyQuery(parseLink(link))
		if again := b.Query(); again != link {
			t.Errorf("the link %q, opened, gives %q", link, again)
		}
	})
}
