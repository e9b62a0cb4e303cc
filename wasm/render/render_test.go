package render

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vugu/vugu"
)

// fakeNode is a node of fakeDOM.
type fakeNode struct {
	typ       vugu.VGNodeType
	tag, ns   string
	data      string // a text's or comment's data; an element's inner HTML when inner
	inner     bool
	attrs     map[string]string // by namespace + " " + key
	props     map[string]string
	children  []*fakeNode
	listeners map[string]func(vugu.DOMEvent)
}

// fakeDOM is a document in memory that counts the writes made to it.
type fakeDOM struct {
	mount  *fakeNode
	writes int
	yields int
}

func (d *fakeDOM) Mount(selector, tag string) (Node, error) {
	if selector != "#app" {
		return nil, fmt.Errorf("no element matches %s", selector)
	}
	d.mount = &fakeNode{typ: vugu.ElementNode, tag: tag, attrs: map[string]string{}, props: map[string]string{}}
	return d.mount, nil
}

func (d *fakeDOM) Create(t *Tree) []Node {
	d.writes++
	var nodes []Node
	var create func(t *Tree) *fakeNode
	create = func(t *Tree) *fakeNode {
		n := &fakeNode{typ: t.Type, tag: t.Tag, ns: t.NS, data: t.Data, attrs: map[string]string{}, props: map[string]string{}}
		nodes = append(nodes, n)
		for _, a := range t.Attrs {
			n.attrs[a[0]+" "+a[1]] = a[2]
		}
		for _, p := range t.Props {
			n.props[p[0]] = p[1]
		}
		if t.Inner != nil {
			n.data, n.inner = *t.Inner, true
		}
		for _, c := range t.Children {
			n.children = append(n.children, create(c))
		}
		return n
	}
	create(t)
	return nodes
}

func (d *fakeDOM) SetData(n Node, data string) { d.writes++; n.(*fakeNode).data = data }
func (d *fakeDOM) SetAttr(el Node, ns, key, val string) {
	d.writes++
	el.(*fakeNode).attrs[ns+" "+key] = val
}
func (d *fakeDOM) RemoveAttr(el Node, ns, key string) {
	d.writes++
	delete(el.(*fakeNode).attrs, ns+" "+key)
}

// SetProp writes only when the value differs, as the contract says.
func (d *fakeDOM) SetProp(el Node, key string, val []byte) {
	if n := el.(*fakeNode); n.props[key] != string(val) {
		d.writes++
		n.props[key] = string(val)
	}
}

func (d *fakeDOM) SetInnerHTML(el Node, html string) {
	d.writes++
	n := el.(*fakeNode)
	n.children, n.data, n.inner = nil, html, html != ""
}

func (d *fakeDOM) Append(parent, child Node) {
	d.writes++
	p := parent.(*fakeNode)
	p.children = append(p.children, child.(*fakeNode))
}

func (d *fakeDOM) Replace(parent, fresh, old Node) {
	d.writes++
	p := parent.(*fakeNode)
	p.children[slices.Index(p.children, old.(*fakeNode))] = fresh.(*fakeNode)
}

func (d *fakeDOM) Remove(parent, child Node) {
	d.writes++
	p := parent.(*fakeNode)
	p.children = slices.Delete(p.children, slices.Index(p.children, child.(*fakeNode)), slices.Index(p.children, child.(*fakeNode))+1)
}

func (d *fakeDOM) Yield() { d.yields++ }

func (d *fakeDOM) Listen(el Node, spec vugu.DOMEventHandlerSpec, handle func(vugu.DOMEvent)) func() {
	d.writes++
	n := el.(*fakeNode)
	if n.listeners == nil {
		n.listeners = map[string]func(vugu.DOMEvent){}
	}
	key := fmt.Sprintf("%s/%t/%t", spec.EventType, spec.Capture, spec.Passive)
	if n.listeners[key] != nil {
		panic("a second listener for " + key)
	}
	n.listeners[key] = handle
	return func() { d.writes++; delete(n.listeners, key) }
}

// html writes the fake document's subtree as HTML, attributes sorted.
func (n *fakeNode) html(b *strings.Builder) {
	switch n.typ {
	case vugu.TextNode:
		b.WriteString(n.data)
		return
	case vugu.CommentNode:
		b.WriteString("<!--" + n.data + "-->")
		return
	}
	b.WriteString("<" + n.ns + n.tag)
	var attrs []string
	for k, v := range n.attrs {
		attrs = append(attrs, fmt.Sprintf(" %s=%q", strings.TrimSpace(k), v))
	}
	for k, v := range n.props {
		attrs = append(attrs, fmt.Sprintf(" .%s=%s", k, v))
	}
	slices.Sort(attrs)
	b.WriteString(strings.Join(attrs, "") + ">")
	if n.inner {
		b.WriteString(n.data)
	}
	for _, c := range n.children {
		c.html(b)
	}
	b.WriteString("</" + n.tag + ">")
}

// want writes a build's node as the document should hold it: components and templates
// flattened, the attributes of namespaced elements with their namespace URIs.
func want(build *vugu.BuildResults, n *vugu.VGNode, b *strings.Builder) {
	switch {
	case n.Component != nil:
		want(build, build.ResultFor(n.Component).Out[0], b)
		return
	case n.IsTemplate():
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			want(build, c, b)
		}
		return
	}
	(&fakeNode{typ: n.Type, data: n.Data}).htmlOpen(build, n, b)
}

// htmlOpen writes element n with its attributes and children, or a text or comment.
func (f *fakeNode) htmlOpen(build *vugu.BuildResults, n *vugu.VGNode, b *strings.Builder) {
	if n.Type != vugu.ElementNode {
		f.html(b)
		return
	}
	ns := namespaceURI(n.Namespace)
	var attrs []string
	for _, a := range n.Attr {
		if ns != "" && a.Key == "xmlns" {
			continue
		}
		key := a.Key
		if ns != "" && a.Namespace != "" {
			key = namespaceURI(a.Namespace) + " " + a.Key
		}
		attrs = append(attrs, fmt.Sprintf(" %s=%q", key, a.Val))
	}
	for _, p := range n.Prop {
		attrs = append(attrs, fmt.Sprintf(" .%s=%s", p.Key, p.JSONVal))
	}
	slices.Sort(attrs)
	b.WriteString("<" + ns + n.Data + strings.Join(attrs, "") + ">")
	if n.InnerHTML != nil {
		b.WriteString(*n.InnerHTML)
	} else {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			want(build, c, b)
		}
	}
	b.WriteString("</" + n.Data + ">")
}

// treeComponent builds whatever tree its build function returns.
type treeComponent struct {
	build func() *vugu.BuildOut
}

func (c *treeComponent) Build(*vugu.BuildIn) *vugu.BuildOut { return c.build() }

// node makes an element (data "" makes a template) with attributes "k=v" and children.
func node(data string, attrs []string, kids ...*vugu.VGNode) *vugu.VGNode {
	n := &vugu.VGNode{Type: vugu.ElementNode, Data: data}
	for _, a := range attrs {
		k, v, _ := strings.Cut(a, "=")
		n.Attr = append(n.Attr, vugu.VGAttribute{Key: k, Val: v})
	}
	for _, k := range kids {
		n.AppendChild(k)
	}
	return n
}

func text(s string) *vugu.VGNode { return &vugu.VGNode{Type: vugu.TextNode, Data: s} }

// randomTree makes a tree of depth at most depth from a few tags, attributes and texts, with
// templates, inner HTML, SVG elements and properties, so that successive trees share much.
func randomTree(rng *rand.Rand, depth int) *vugu.VGNode {
	tags := []string{"div", "p", "span", "ul", "li", "svg", ""}
	tag := tags[rng.IntN(len(tags))]
	if depth == 0 || rng.IntN(5) == 0 {
		switch rng.IntN(3) {
		case 0:
			return &vugu.VGNode{Type: vugu.CommentNode, Data: fmt.Sprint("c", rng.IntN(3))}
		default:
			return text(fmt.Sprint("t", rng.IntN(4)))
		}
	}
	var attrs []string
	for _, k := range []string{"class", "id", "title"} {
		if rng.IntN(2) == 0 && tag != "" {
			attrs = append(attrs, fmt.Sprintf("%s=%s%d", k, k, rng.IntN(3)))
		}
	}
	n := node(tag, attrs)
	if tag == "svg" {
		n.Namespace = "svg"
		if rng.IntN(2) == 0 {
			n.Attr = append(n.Attr, vugu.VGAttribute{Namespace: "xlink", Key: "href", Val: fmt.Sprint("#", rng.IntN(2))})
		}
	}
	if tag == "span" { // a property is never taken away, so the tag decides whether it is set
		n.Prop = append(n.Prop, vugu.VGProperty{Key: "value", JSONVal: []byte(fmt.Sprintf("%q", fmt.Sprint("v", rng.IntN(2))))})
	}
	if tag != "" && rng.IntN(5) == 0 {
		html := fmt.Sprint("<b>", rng.IntN(3), "</b>")
		n.InnerHTML = &html
		return n
	}
	for range rng.IntN(4) {
		n.AppendChild(randomTree(rng, depth-1))
	}
	return n
}

// TestRenderMatchesBuild renders a sequence of random trees into one document and checks that
// after each render the document holds exactly the build, and that rendering the same build
// again writes nothing. A renderer that skipped a changed attribute, text, property or inner
// HTML, or left a removed node or attribute behind, fails here.
func TestRenderMatchesBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dom := &fakeDOM{}
	r := New(dom, "#app")
	env := r.EventEnv()
	benv, err := vugu.NewBuildEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	var tree *vugu.VGNode
	root := &treeComponent{build: func() *vugu.BuildOut { return &vugu.BuildOut{Out: []*vugu.VGNode{tree}} }}
	for i := range 300 {
		tree = node("main", []string{fmt.Sprint("class=k", rng.IntN(2))}, randomTree(rng, 4), randomTree(rng, 4), randomTree(rng, 3))
		build := benv.RunBuild(root)
		if err := r.Render(build); err != nil {
			t.Fatal(err)
		}
		var got, exp strings.Builder
		dom.mount.html(&got)
		want(build, tree, &exp)
		if got.String() != exp.String() {
			t.Fatalf("render %d:\n got %s\nwant %s", i, got.String(), exp.String())
		}
		dom.writes = 0
		if err := r.Render(benv.RunBuild(root)); err != nil {
			t.Fatal(err)
		}
		if dom.writes != 0 {
			t.Fatalf("render %d again: %d writes, want none", i, dom.writes)
		}
	}
}

// TestRenderWritesOnlyChanges checks that one changed attribute or text costs one write, and
// that an attribute the renderer never wrote (the open attribute the browser sets on a
// <details> the person unfolds) is left in place.
func TestRenderWritesOnlyChanges(t *testing.T) {
	dom := &fakeDOM{}
	r := New(dom, "#app")
	benv, _ := vugu.NewBuildEnv(r.EventEnv())
	title, label := "a", "one"
	root := &treeComponent{build: func() *vugu.BuildOut {
		rows := node("tbody", nil)
		for i := range 50 {
			rows.AppendChild(node("tr", nil, node("td", []string{"class=num"}, text(fmt.Sprint(i)))))
		}
		return &vugu.BuildOut{Out: []*vugu.VGNode{node("div", nil,
			node("details", []string{"id=d", "title=" + title}, node("summary", nil, text(label))),
			node("table", nil, rows))}}
	}}
	if err := r.Render(benv.RunBuild(root)); err != nil {
		t.Fatal(err)
	}
	details := dom.mount.children[0]
	details.attrs[" open"] = "" // the person unfolds it
	for _, change := range []func(){func() { title = "b" }, func() { label = "two" }} {
		change()
		dom.writes = 0
		if err := r.Render(benv.RunBuild(root)); err != nil {
			t.Fatal(err)
		}
		if dom.writes != 1 {
			t.Errorf("%d writes for one change, want 1", dom.writes)
		}
	}
	if _, ok := details.attrs[" open"]; !ok || details.attrs[" title"] != "b" || details.children[0].children[0].data != "two" {
		t.Errorf("details = %+v", details)
	}
}

// TestRenderComponents checks that a component's output takes its place in the document.
func TestRenderComponents(t *testing.T) {
	dom := &fakeDOM{}
	r := New(dom, "#app")
	benv, _ := vugu.NewBuildEnv(r.EventEnv())
	child := &treeComponent{build: func() *vugu.BuildOut {
		return &vugu.BuildOut{Out: []*vugu.VGNode{node("span", []string{"class=child"}, text("inside"))}}
	}}
	root := &treeComponent{build: func() *vugu.BuildOut {
		slot := &vugu.VGNode{Component: child}
		return &vugu.BuildOut{Out: []*vugu.VGNode{node("div", nil, text("before"), slot, text("after"))}, Components: []vugu.Builder{child}}
	}}
	if err := r.Render(benv.RunBuild(root)); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	dom.mount.html(&got)
	if want := `<div>before<span class="child">inside</span>after</div>`; got.String() != want {
		t.Errorf("got %s, want %s", got.String(), want)
	}
}

// TestListeners checks that an event calls the latest build's handler under the event
// environment, asks for a render, and that a removed element's listener is removed.
func TestListeners(t *testing.T) {
	dom := &fakeDOM{}
	r := New(dom, "#app")
	benv, _ := vugu.NewBuildEnv(r.EventEnv())
	var calls []string
	build, show := 0, true
	root := &treeComponent{build: func() *vugu.BuildOut {
		build++
		b := build
		button := node("button", nil, text("go"))
		button.DOMEventHandlerSpecList = []vugu.DOMEventHandlerSpec{{EventType: "click", Func: func(e vugu.DOMEvent) {
			if e.EventEnv() == nil {
				t.Error("the event has no EventEnv")
			}
			calls = append(calls, fmt.Sprint("build ", b))
		}}}
		div := node("div", nil)
		if show {
			div.AppendChild(button)
		}
		return &vugu.BuildOut{Out: []*vugu.VGNode{div}}
	}}
	for range 2 {
		if err := r.Render(benv.RunBuild(root)); err != nil {
			t.Fatal(err)
		}
	}
	button := dom.mount.children[0]
	button.listeners["click/false/false"](nil)
	if !slices.Equal(calls, []string{"build 2"}) {
		t.Errorf("calls = %v, want the second build's handler", calls)
	}
	if !r.EventWait() || dom.yields != 0 {
		t.Errorf("the event asked for no render, or not at once (%d yields)", dom.yields)
	}
	r.EventEnv().Lock()
	r.EventEnv().UnlockRender() // as a worker's message does
	if !r.EventWait() || dom.yields != 1 {
		t.Errorf("a render asked for outside an event did not yield first (%d yields)", dom.yields)
	}
	show = false
	if err := r.Render(benv.RunBuild(root)); err != nil {
		t.Fatal(err)
	}
	if len(button.listeners) != 0 {
		t.Errorf("the removed button still listens: %v", button.listeners)
	}
}

// TestTreeJSON checks the JSON that web/render.js reads: short member names, empty ones left
// out, an explicitly empty inner HTML kept.
func TestTreeJSON(t *testing.T) {
	inner, empty := "<b>\"x\"</b>", ""
	tree := &Tree{Type: vugu.ElementNode, Tag: "svg", NS: "http://www.w3.org/2000/svg",
		Attrs: [][3]string{{"", "class", "a"}}, Props: [][2]string{{"value", `"v"`}},
		Children: []*Tree{{Type: vugu.TextNode, Data: "t"}, {Type: vugu.ElementNode, Tag: "p", Inner: &inner}, {Type: vugu.ElementNode, Tag: "i", Inner: &empty}}}
	got, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"t":3,"g":"svg","n":"http://www.w3.org/2000/svg","a":[["","class","a"]],"p":[["value","\"v\""]],"c":[{"t":1,"d":"t"},{"t":3,"g":"p","h":"\u003cb\u003e\"x\"\u003c/b\u003e"},{"t":3,"g":"i","h":""}]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
