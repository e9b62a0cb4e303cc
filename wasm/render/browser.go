//go:build js && wasm

package render

import (
	"encoding/json"
	"errors"
	"syscall/js"

	"github.com/vugu/vugu"
	vjs "github.com/vugu/vugu/js"
)

// Browser returns the page's document as a DOM.
func Browser() DOM {
	g := js.Global()
	return browser{doc: g.Get("document"), json: g.Get("JSON")}
}

// browser is the page's document; its Nodes are js.Values.
type browser struct{ doc, json js.Value }

func (b browser) Mount(selector, tag string) (Node, error) {
	el := b.doc.Call("querySelector", selector)
	if el.IsNull() {
		return nil, errors.New("render: no element matches " + selector)
	}
	if el.Get("localName").String() != tag {
		fresh := b.doc.Call("createElement", tag)
		el.Get("parentNode").Call("replaceChild", fresh, el)
		el = fresh
	}
	el.Set("innerHTML", "")
	for attrs := el.Get("attributes"); attrs.Length() > 0; {
		el.Call("removeAttribute", attrs.Index(0).Get("name"))
	}
	return el, nil
}

// Create hands t, as JSON, to web/render.js's privoptCreate, which makes the nodes.
func (b browser) Create(t *Tree) []Node {
	text, err := json.Marshal(t)
	if err != nil {
		panic(err) // a Tree holds only strings and numbers
	}
	arr := js.Global().Call("privoptCreate", string(text))
	nodes := make([]Node, arr.Length())
	for i := range nodes {
		nodes[i] = arr.Index(i)
	}
	return nodes
}

func (b browser) SetData(n Node, data string) { n.(js.Value).Set("data", data) }

func (b browser) SetAttr(el Node, ns, key, val string) {
	if ns == "" {
		el.(js.Value).Call("setAttribute", key, val)
		return
	}
	el.(js.Value).Call("setAttributeNS", nullIfEmpty(ns), key, val)
}

func (b browser) RemoveAttr(el Node, ns, key string) {
	if ns == "" {
		el.(js.Value).Call("removeAttribute", key)
		return
	}
	el.(js.Value).Call("removeAttributeNS", nullIfEmpty(ns), key)
}

// nullIfEmpty returns JavaScript's null for "" (no namespace), or ns.
func nullIfEmpty(ns string) any {
	if ns == "" {
		return nil
	}
	return ns
}

func (b browser) SetProp(el Node, key string, val []byte) {
	v := b.json.Call("parse", string(val))
	if e := el.(js.Value); !e.Get(key).Equal(v) {
		e.Set(key, v)
	}
}

func (b browser) SetInnerHTML(el Node, html string) { el.(js.Value).Set("innerHTML", html) }
func (b browser) Append(parent, child Node)         { parent.(js.Value).Call("appendChild", child) }
func (b browser) Remove(parent, child Node)         { parent.(js.Value).Call("removeChild", child) }

func (b browser) Replace(parent, fresh, old Node) {
	parent.(js.Value).Call("replaceChild", fresh, old)
}

func (b browser) Listen(el Node, spec vugu.DOMEventHandlerSpec, handle func(vugu.DOMEvent)) func() {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		handle(domEvent{ev: args[0]})
		return nil
	})
	opts := map[string]any{"capture": spec.Capture, "passive": spec.Passive}
	e := el.(js.Value)
	e.Call("addEventListener", spec.EventType, f, opts)
	return func() {
		e.Call("removeEventListener", spec.EventType, f, opts)
		f.Release()
	}
}

// Yield waits for a task posted to a MessageChannel (setTimeout would wait at least 4 ms when
// timers nest).
func (b browser) Yield() {
	done := make(chan struct{})
	ch := js.Global().Get("MessageChannel").New()
	var f js.Func
	f = js.FuncOf(func(js.Value, []js.Value) any {
		f.Release()
		close(done)
		return nil
	})
	ch.Get("port1").Set("onmessage", f)
	ch.Get("port2").Call("postMessage", nil)
	<-done
	ch.Get("port1").Call("close")
}

// domEvent is a browser event as a vugu.DOMEvent. Its Prop methods read the event's properties
// when asked (Vugu's own copies every simple property of the event and its target first).
type domEvent struct{ ev js.Value }

// Prop returns the value at the path keys from the event: a string, float64 or bool, or nil
// when the path leads to anything else.
func (e domEvent) Prop(keys ...string) any {
	v := e.ev
	for _, k := range keys {
		if t := v.Type(); t != js.TypeObject && t != js.TypeFunction {
			return nil
		}
		v = v.Get(k)
	}
	switch v.Type() {
	case js.TypeString:
		return v.String()
	case js.TypeNumber:
		return v.Float()
	case js.TypeBoolean:
		return v.Bool()
	}
	return nil
}

func (e domEvent) PropString(keys ...string) string   { s, _ := e.Prop(keys...).(string); return s }
func (e domEvent) PropFloat64(keys ...string) float64 { f, _ := e.Prop(keys...).(float64); return f }
func (e domEvent) PropBool(keys ...string) bool       { b, _ := e.Prop(keys...).(bool); return b }

// EventSummary returns the event's simple properties (strings, numbers, booleans), its own and
// its prototypes', with those of its target under "target", as Vugu's summary has them.
func (e domEvent) EventSummary() map[string]any {
	sum := summary(e.ev)
	if t := e.ev.Get("target"); t.Truthy() {
		sum["target"] = summary(t)
	}
	return sum
}

// summary returns the simple properties of v and of its prototypes.
func summary(v js.Value) map[string]any {
	object := js.Global().Get("Object")
	out := map[string]any{}
	for p := v; p.Truthy(); p = object.Call("getPrototypeOf", p) {
		names := object.Call("getOwnPropertyNames", p)
		for i := range names.Length() {
			name := names.Index(i).String()
			if _, ok := out[name]; ok {
				continue
			}
			if x := simpleProp(v, name); x != nil {
				out[name] = x
			}
		}
	}
	return out
}

// simpleProp returns v's property name if it is simple, and nil if it is not or its getter
// throws.
func simpleProp(v js.Value, name string) (x any) {
	defer func() {
		if recover() != nil {
			x = nil
		}
	}()
	return domEvent{ev: v}.Prop(name)
}

func (e domEvent) JSEvent() vjs.Value              { return vjs.Value(e.ev) }
func (e domEvent) JSEventTarget() vjs.Value        { return vjs.Value(e.ev.Get("target")) }
func (e domEvent) JSEventCurrentTarget() vjs.Value { return vjs.Value(e.ev.Get("currentTarget")) }
func (e domEvent) PreventDefault()                 { e.ev.Call("preventDefault") }
func (e domEvent) StopPropagation()                { e.ev.Call("stopPropagation") }

// EventEnv returns nil: the Renderer hands handlers the event with its own EventEnv.
func (e domEvent) EventEnv() vugu.EventEnv { return nil }
