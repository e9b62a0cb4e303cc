//go:build js && wasm

// Command widget is the light privacy-curve widget (widget.wasm, run by widget.html): the
// widget of internal/curves, which the app's page shows below its steps, drawn into the
// page's static markup with syscall/js. It links the privacy accounting and pkg/plot through
// internal/curves, and neither Vugu, the engine, fmt, reflect nor encoding/json, so that it
// stays small (docs/app.md says how small). It requests nothing: the page's scripts fetch
// widget.wasm, and every number and curve is computed here.
package main

import (
	"syscall/js"

	"github.com/privopt/privopt/internal/curves"
	"github.com/privopt/privopt/pkg/plot"
)

// svgNS is the namespace of the plots' elements.
const svgNS = "http://www.w3.org/2000/svg"

var doc = js.Global().Get("document")

func byID(id string) js.Value { return doc.Call("getElementById", id) }

// view is the page's elements, kept up to date with the widget.
type view struct {
	w      *curves.Widget
	fields []field
	// problem says why nothing is drawn; results and plots are shown only when nothing is wrong.
	problem, results, plots                    js.Value
	deltaAtEps, epsAtDelta, verdict, largestMu js.Value
	curve, tradeoff                            js.Value
}

// field is an input of the page with its error and the widget's Field.
type field struct {
	input, err js.Value
	f          *curves.Field
}

func main() {
	w := curves.New()
	w.ApplyQuery(query())
	v := &view{
		w:       w,
		problem: byID("curve-problem"), results: byID("results"), plots: byID("plots"),
		deltaAtEps: byID("delta-at-eps"), epsAtDelta: byID("eps-at-delta"), verdict: byID("verdict"), largestMu: byID("largest-mu"),
		curve: byID("curve"), tradeoff: byID("tradeoff"),
	}
	for _, f := range []struct {
		id  string
		f   *curves.Field
		set func(string)
	}{{"mu", &w.Mu, w.SetMu}, {"eps", &w.Eps, w.SetEps}, {"delta", &w.Delta, w.SetDelta}} {
		input := byID(f.id)
		input.Set("value", f.f.Text)
		set := f.set
		input.Call("addEventListener", "input", js.FuncOf(func(this js.Value, _ []js.Value) any {
			set(this.Get("value").String())
			v.render()
			return nil
		}))
		v.fields = append(v.fields, field{input: input, err: byID(f.id + "-error"), f: f.f})
	}
	byID("use-largest-mu").Call("addEventListener", "click", js.FuncOf(func(js.Value, []js.Value) any {
		w.UseLargestMu()
		byID("mu").Set("value", w.Mu.Text)
		v.render()
		return nil
	}))
	v.render()
	doc.Get("documentElement").Call("setAttribute", "data-ready", "true") // the browser tests wait for it
	select {}
}

// query returns the parameters mu, eps and delta of the page's URL that are present, decoded
// by the browser's URLSearchParams.
func query() map[string]string {
	params := js.Global().Get("URLSearchParams").New(js.Global().Get("location").Get("search"))
	q := map[string]string{}
	for _, name := range []string{"mu", "eps", "delta"} {
		if params.Call("has", name).Bool() {
			q[name] = params.Call("get", name).String()
		}
	}
	return q
}

// render shows the widget's state: each field's error, and the numbers and plots or why there
// are none.
func (v *view) render() {
	for _, f := range v.fields {
		f.input.Call("setAttribute", "aria-invalid", f.f.Invalid())
		f.err.Set("textContent", f.f.Err)
		f.err.Set("hidden", f.f.Err == "")
	}
	v.problem.Set("textContent", v.w.Problem())
	valid := v.w.Valid()
	v.results.Set("hidden", !valid)
	v.plots.Set("hidden", !valid)
	if !valid {
		return
	}
	v.deltaAtEps.Set("textContent", v.w.DeltaAtEps())
	v.epsAtDelta.Set("textContent", v.w.EpsAtDelta())
	v.verdict.Set("textContent", v.w.Verdict())
	v.largestMu.Set("textContent", v.w.LargestMuText())
	draw(v.curve, v.w.Curve)
	draw(v.tradeoff, v.w.Tradeoff)
}

// draw replaces the content of an svg element with a drawing's elements.
func draw(svg js.Value, d plot.Drawing) {
	svg.Call("setAttribute", "viewBox", d.ViewBox)
	frag := doc.Call("createDocumentFragment")
	for _, e := range d.Elements() {
		el := doc.Call("createElementNS", svgNS, e.Name)
		for _, a := range e.Attrs {
			el.Call("setAttribute", a.Name, a.Value)
		}
		if e.Text != "" {
			el.Set("textContent", e.Text)
		}
		frag.Call("appendChild", el)
	}
	svg.Call("replaceChildren", frag)
}
