// Package render puts the output of a Vugu build into a document, writing only what changed
// since the last render.
//
// Vugu's own DOM renderer (vugu/domrender, v0.4.0) rewrites every attribute and every static
// text of the page on each render, so a render costs as much as the page is large: 100–180 ms
// of main-thread time on a 2-core machine once privopt's page shows results, several times a
// second while fits post their progress. This Renderer keeps a copy of what it last wrote and
// compares the new build with it: an unchanged page costs no DOM call at all, and a render
// costs what changed. It also leaves alone what it never wrote, such as the open attribute
// that the browser sets on a <details> the person unfolds.
//
// The contract, for a build whose root is one element (the mount point is replaced by it):
//
//   - after Render, the mount point's subtree holds exactly the build's elements, texts and
//     comments in order, each element with the build's attributes (attributes the Renderer
//     wrote earlier and the build no longer has are removed; others are left), the properties
//     the build gives set (compared with the element's live value; a property the build no
//     longer gives keeps its value), its inner HTML when the build gives one,
//     and a listener for each of its event handlers that calls the handler of the latest build;
//   - children are matched by position: a node whose type, tag or namespace changed is created
//     anew, with its subtree, and replaces the old one;
//   - components and templates (vg-template, slots) are flattened into their output, as
//     domrender does; component CSS, vg-js-create and vg-js-populate are not supported (Render
//     returns an error), nor is the Rendered lifecycle call (privopt's components use none).
package render

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/vugu/vugu"
)

// A Node is an element, text or comment of the document, as its DOM returns it.
type Node any

// DOM is the document a Renderer writes to: the browser's (Browser) or a fake in tests.
type DOM interface {
	// Mount returns the element that selector finds, replaced by a new element of tag when its
	// tag differs, and emptied (no attributes, no children).
	Mount(selector, tag string) (Node, error)
	// Create makes the nodes of t, not yet in the document, and returns them in pre-order (t's
	// node first).
	Create(t *Tree) []Node
	// SetData sets the text of a text or comment node.
	SetData(n Node, data string)
	// SetAttr sets an attribute of el; ns is the attribute's namespace URI, and "" when el is
	// an HTML element. RemoveAttr removes one.
	SetAttr(el Node, ns, key, val string)
	RemoveAttr(el Node, ns, key string)
	// SetProp sets the JavaScript property key of el to the value of the JSON text val, unless
	// the element's property already has that value.
	SetProp(el Node, key string, val []byte)
	SetInnerHTML(el Node, html string)
	// Append adds child as the last child of parent; Replace puts fresh in old's place; Remove
	// takes child out of parent.
	Append(parent, child Node)
	Replace(parent, fresh, old Node)
	Remove(parent, child Node)
	// Yield returns after the work queued before it has run: in the browser, at the start of a
	// new task.
	Yield()
	// Listen adds an event listener to el that calls handle with each event, and returns the
	// function that removes it.
	Listen(el Node, spec vugu.DOMEventHandlerSpec, handle func(vugu.DOMEvent)) (remove func())
}

// Tree describes nodes to create: an element (Tag, in the namespace URI NS, "" for HTML) with
// its attributes ([namespace URI, key, value]), properties ([key, JSON value]), inner HTML or
// children; or a text or comment (Type, Data). Its JSON form is what web/render.js reads.
type Tree struct {
	Type     vugu.VGNodeType `json:"t"`
	Tag      string          `json:"g,omitempty"`
	NS       string          `json:"n,omitempty"`
	Data     string          `json:"d,omitempty"`
	Attrs    [][3]string     `json:"a,omitempty"`
	Props    [][2]string     `json:"p,omitempty"`
	Inner    *string         `json:"h,omitempty"`
	Children []*Tree         `json:"c,omitempty"`
}

// Renderer renders builds into a DOM; see the package documentation for its contract.
type Renderer struct {
	dom      DOM
	selector string
	root     *mirror
	mu       sync.RWMutex // held for writing by event handlers, for reading by Render
	wake     chan bool
	byEvent  atomic.Bool // a DOM event asked for the next render
	env      *vugu.EventEnvImpl
}

// New returns a Renderer that mounts builds at the element selector finds in dom.
func New(dom DOM, selector string) *Renderer {
	r := &Renderer{dom: dom, selector: selector, wake: make(chan bool, 1)}
	r.env = vugu.NewEventEnvImpl(&r.mu, r.wake)
	return r
}

// EventEnv returns the environment whose UnlockRender asks for a render (EventWait).
func (r *Renderer) EventEnv() vugu.EventEnv { return r.env }

// EventWait blocks until a render has been asked for since the last call returned; any number
// of requests meanwhile make one render. A render asked for by a DOM event follows at once, so
// that the page answers the person within the event's task; one asked for otherwise (a
// worker's message, a timer) waits for the DOM's Yield first, so that it does not lengthen the
// task that asked for it. It reports true (the page never stops rendering).
func (r *Renderer) EventWait() bool {
	<-r.wake
	if !r.byEvent.Swap(false) {
		r.dom.Yield()
	}
	return true
}

// mirror is what the Renderer last wrote at one position of the document.
type mirror struct {
	node      Node
	typ       vugu.VGNodeType
	tag, ns   string // an element's tag and namespace URI; a text's or comment's data in tag
	attrs     []vugu.VGAttribute
	inner     *string // the inner HTML written, nil when the children are nodes
	children  []*mirror
	listeners []*listener
}

// listener is an event listener of an element; handle is the handler of the latest build.
type listener struct {
	spec   vugu.DOMEventHandlerSpec // Func unused: handle is called
	handle func(vugu.DOMEvent)
	remove func()
}

// Render writes build into the document.
func (r *Renderer) Render(build *vugu.BuildResults) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if build == nil || build.Out == nil || len(build.Out.Out) != 1 {
		return errors.New("render: a build must have exactly one root node")
	}
	if err := checkUnsupported(build, build.Out); err != nil {
		return err
	}
	top, err := flatten(build, []*vugu.VGNode{build.Out.Out[0]})
	if err != nil {
		return err
	}
	if len(top) != 1 || top[0].Type != vugu.ElementNode {
		return errors.New("render: the root of a build must be one element")
	}
	n := top[0]
	if r.root == nil || r.root.tag != n.Data || r.root.ns != namespaceURI(n.Namespace) {
		if r.root != nil {
			r.release(r.root)
		}
		el, err := r.dom.Mount(r.selector, n.Data)
		if err != nil {
			return err
		}
		r.root = &mirror{node: el, typ: vugu.ElementNode, tag: n.Data, ns: namespaceURI(n.Namespace)}
	}
	return r.update(build, r.root, n)
}

// checkUnsupported returns an error if bo or a component under it has CSS.
func checkUnsupported(build *vugu.BuildResults, bo *vugu.BuildOut) error {
	if len(bo.CSS) > 0 {
		return errors.New("render: component CSS is not supported")
	}
	for _, c := range bo.Components {
		out := build.ResultFor(c)
		if out == nil {
			return errors.New("render: a component has no build output")
		}
		if err := checkUnsupported(build, out); err != nil {
			return err
		}
	}
	return nil
}

// flatten returns the nodes that stand for nodes in the document: a component is replaced by
// its output, a template by its children, recursively.
func flatten(build *vugu.BuildResults, nodes []*vugu.VGNode) ([]*vugu.VGNode, error) {
	var out []*vugu.VGNode
	var visit func(n *vugu.VGNode) error
	visit = func(n *vugu.VGNode) error {
		switch {
		case n.Component != nil:
			bo := build.ResultFor(n.Component)
			if bo == nil || len(bo.Out) != 1 {
				return errors.New("render: a component must have exactly one root node")
			}
			return visit(bo.Out[0])
		case n.IsTemplate():
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if err := visit(c); err != nil {
					return err
				}
			}
			return nil
		case n.JSCreateHandler != nil || n.JSPopulateHandler != nil:
			return errors.New("render: vg-js-create and vg-js-populate are not supported")
		}
		out = append(out, n)
		return nil
	}
	for _, n := range nodes {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// children returns the child nodes of n, flattened.
func children(build *vugu.BuildResults, n *vugu.VGNode) ([]*vugu.VGNode, error) {
	var kids []*vugu.VGNode
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		kids = append(kids, c)
	}
	return flatten(build, kids)
}

// same reports whether m can be updated into n, rather than replaced.
func same(m *mirror, n *vugu.VGNode) bool {
	if m.typ != n.Type {
		return false
	}
	if n.Type != vugu.ElementNode {
		return true
	}
	return m.tag == n.Data && m.ns == namespaceURI(n.Namespace)
}

// create makes the node of n with its subtree, not yet in the document, with one call of the
// DOM (a page's first render creates thousands of nodes).
func (r *Renderer) create(build *vugu.BuildResults, n *vugu.VGNode) (*mirror, error) {
	var mirrors []*mirror                     // in pre-order
	var handlers [][]vugu.DOMEventHandlerSpec // of each mirror's element
	var describe func(n *vugu.VGNode) (*Tree, error)
	describe = func(n *vugu.VGNode) (*Tree, error) {
		m := &mirror{typ: n.Type}
		mirrors = append(mirrors, m)
		handlers = append(handlers, n.DOMEventHandlerSpecList)
		t := &Tree{Type: n.Type}
		switch n.Type {
		case vugu.ElementNode:
			m.tag, m.ns = n.Data, namespaceURI(n.Namespace)
			t.Tag, t.NS = m.tag, m.ns
			for _, p := range n.Prop {
				t.Props = append(t.Props, [2]string{p.Key, string(p.JSONVal)})
			}
			for _, a := range n.Attr {
				if m.ns != "" && a.Namespace == "" && a.Key == "xmlns" {
					continue
				}
				m.attrs = append(m.attrs, a)
				ns := ""
				if m.ns != "" {
					ns = namespaceURI(a.Namespace)
				}
				t.Attrs = append(t.Attrs, [3]string{ns, a.Key, a.Val})
			}
			if n.InnerHTML != nil {
				html := *n.InnerHTML
				m.inner, t.Inner = &html, &html
				break
			}
			kids, err := children(build, n)
			if err != nil {
				return nil, err
			}
			for _, k := range kids {
				c, err := describe(k)
				if err != nil {
					return nil, err
				}
				t.Children = append(t.Children, c)
			}
		case vugu.TextNode, vugu.CommentNode:
			m.tag, t.Data = n.Data, n.Data
		default:
			return nil, errors.New("render: unknown node type")
		}
		return t, nil
	}
	t, err := describe(n)
	if err != nil {
		return nil, err
	}
	nodes := r.dom.Create(t)
	if len(nodes) != len(mirrors) {
		return nil, errors.New("render: the document created another number of nodes than asked")
	}
	// Link the mirrors as the tree (pre-order), and add the listeners.
	next := 0
	var link func(t *Tree) *mirror
	link = func(t *Tree) *mirror {
		m := mirrors[next]
		m.node = nodes[next]
		r.updateListeners(m, handlers[next])
		next++
		for _, c := range t.Children {
			m.children = append(m.children, link(c))
		}
		return m
	}
	return link(t), nil
}

// update writes into m's node what differs between m and n (same(m, n) holds).
func (r *Renderer) update(build *vugu.BuildResults, m *mirror, n *vugu.VGNode) error {
	if n.Type != vugu.ElementNode {
		if m.tag != n.Data {
			r.dom.SetData(m.node, n.Data)
			m.tag = n.Data
		}
		return nil
	}
	r.updateAttrs(m, n)
	for _, p := range n.Prop {
		r.dom.SetProp(m.node, p.Key, p.JSONVal)
	}
	r.updateListeners(m, n.DOMEventHandlerSpecList)
	if n.InnerHTML != nil {
		if m.inner == nil || *m.inner != *n.InnerHTML {
			for _, c := range m.children {
				r.release(c)
			}
			m.children = nil
			r.dom.SetInnerHTML(m.node, *n.InnerHTML)
			html := *n.InnerHTML
			m.inner = &html
		}
		return nil
	}
	if m.inner != nil {
		r.dom.SetInnerHTML(m.node, "")
		m.inner = nil
	}
	kids, err := children(build, n)
	if err != nil {
		return err
	}
	return r.updateChildren(build, m, kids)
}

// updateAttrs sets n's attributes that m lacks or holds with another value, and removes those
// that m wrote and n no longer has.
func (r *Renderer) updateAttrs(m *mirror, n *vugu.VGNode) {
	attrNS := func(a vugu.VGAttribute) string {
		if m.ns == "" {
			return ""
		}
		return namespaceURI(a.Namespace)
	}
	for _, a := range n.Attr {
		if m.ns != "" && a.Namespace == "" && a.Key == "xmlns" {
			continue // the element's namespace, given when it was created
		}
		if old, ok := findAttr(m.attrs, a); !ok || old != a.Val {
			r.dom.SetAttr(m.node, attrNS(a), a.Key, a.Val)
		}
	}
	for _, a := range m.attrs {
		if _, ok := findAttr(n.Attr, a); !ok {
			r.dom.RemoveAttr(m.node, attrNS(a), a.Key)
		}
	}
	m.attrs = append(m.attrs[:0], n.Attr...)
}

// findAttr returns the value of the attribute of attrs with a's namespace and key.
func findAttr(attrs []vugu.VGAttribute, a vugu.VGAttribute) (string, bool) {
	for _, b := range attrs {
		if b.Key == a.Key && b.Namespace == a.Namespace {
			return b.Val, true
		}
	}
	return "", false
}

// updateListeners keeps one listener per event type, phase and passivity of specs, each
// calling the latest build's handler, and removes the others.
func (r *Renderer) updateListeners(m *mirror, specs []vugu.DOMEventHandlerSpec) {
	kept := m.listeners[:0]
	for _, l := range m.listeners {
		if h := handlerFor(specs, l.spec); h != nil {
			l.handle = h
			kept = append(kept, l)
		} else {
			l.remove()
		}
	}
	clear(m.listeners[len(kept):])
	m.listeners = kept
	for _, s := range specs {
		found := false
		for _, l := range m.listeners {
			found = found || sameEvent(l.spec, s)
		}
		if found {
			continue
		}
		l := &listener{spec: vugu.DOMEventHandlerSpec{EventType: s.EventType, Capture: s.Capture, Passive: s.Passive}, handle: s.Func}
		l.remove = r.dom.Listen(m.node, l.spec, func(e vugu.DOMEvent) { r.dispatch(l, e) })
		m.listeners = append(m.listeners, l)
	}
}

// handlerFor returns the function of the first spec of specs that handles the events of s.
func handlerFor(specs []vugu.DOMEventHandlerSpec, s vugu.DOMEventHandlerSpec) func(vugu.DOMEvent) {
	for _, t := range specs {
		if sameEvent(t, s) {
			return t.Func
		}
	}
	return nil
}

func sameEvent(a, b vugu.DOMEventHandlerSpec) bool {
	return a.EventType == b.EventType && a.Capture == b.Capture && a.Passive == b.Passive
}

// dispatch calls l's handler with e under the event environment's lock, then asks for a render.
func (r *Renderer) dispatch(l *listener, e vugu.DOMEvent) {
	r.env.Lock()
	l.handle(event{e, r.env})
	r.byEvent.Store(true)
	r.env.UnlockRender()
}

// event is a DOM event whose EventEnv is the Renderer's.
type event struct {
	vugu.DOMEvent
	env vugu.EventEnv
}

func (e event) EventEnv() vugu.EventEnv { return e.env }

// updateChildren makes m's children the nodes kids, matched by position.
func (r *Renderer) updateChildren(build *vugu.BuildResults, m *mirror, kids []*vugu.VGNode) error {
	for i, k := range kids {
		if i < len(m.children) && same(m.children[i], k) {
			if err := r.update(build, m.children[i], k); err != nil {
				return err
			}
			continue
		}
		c, err := r.create(build, k)
		if err != nil {
			return err
		}
		if i < len(m.children) {
			r.dom.Replace(m.node, c.node, m.children[i].node)
			r.release(m.children[i])
			m.children[i] = c
		} else {
			r.dom.Append(m.node, c.node)
			m.children = append(m.children, c)
		}
	}
	for _, c := range m.children[len(kids):] {
		r.dom.Remove(m.node, c.node)
		r.release(c)
	}
	clear(m.children[len(kids):])
	m.children = m.children[:len(kids)]
	return nil
}

// release removes the listeners of m's subtree, which has left the document.
func (r *Renderer) release(m *mirror) {
	for _, l := range m.listeners {
		l.remove()
	}
	m.listeners = nil
	for _, c := range m.children {
		r.release(c)
	}
}

// namespaceURI returns the URI of a Vugu namespace prefix ("" for HTML and unknown prefixes).
func namespaceURI(prefix string) string {
	switch prefix {
	case "math":
		return "http://www.w3.org/1998/Math/MathML"
	case "svg":
		return "http://www.w3.org/2000/svg"
	case "xlink":
		return "http://www.w3.org/1999/xlink"
	case "xml":
		return "http://www.w3.org/XML/1998/namespace"
	case "xmlns":
		return "http://www.w3.org/2000/xmlns/"
	}
	return ""
}
