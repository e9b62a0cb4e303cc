package onnx

import (
	"fmt"
	"slices"
	"strings"
)

// graph builds a GraphProto: its nodes in the order they are added (so each after the nodes
// that compute its inputs), its constants as initializers, and its inputs and outputs.
type graph struct {
	prefix string          // begins every name the graph makes, and no reserved name
	used   map[string]bool // the names taken

	nodes, initializers, inputs, outputs []message
}

// newGraph returns an empty graph whose made names collide with none of reserved (the
// graph's input and output names).
func newGraph(reserved []string) *graph {
	g := &graph{prefix: "privopt/", used: make(map[string]bool)}
	for _, r := range reserved {
		g.used[r] = true
	}
	for slices.ContainsFunc(reserved, func(r string) bool { return strings.HasPrefix(r, g.prefix) }) {
		g.prefix = "_" + g.prefix
	}
	return g
}

// fresh returns a name not yet taken, made from hint.
func (g *graph) fresh(hint string) string {
	name := g.prefix + hint
	for i := 2; g.used[name]; i++ {
		name = fmt.Sprintf("%s%s#%d", g.prefix, hint, i)
	}
	g.used[name] = true
	return name
}

// node adds a node of the operator domain.opType ("" is ai.onnx) computing outputs from inputs.
func (g *graph) node(domain, opType string, inputs, outputs []string, attrs ...message) {
	var m message
	for _, in := range inputs {
		m.string(nodeInput, in)
	}
	for _, out := range outputs {
		m.string(nodeOutput, out)
	}
	m.string(nodeName, outputs[0])
	m.string(nodeOpType, opType)
	if domain != "" {
		m.string(nodeDomain, domain)
	}
	for _, a := range attrs {
		m.message(nodeAttribute, a)
	}
	g.nodes = append(g.nodes, m)
}

// op adds an ai.onnx node with one output, named from hint, and returns the output's name.
func (g *graph) op(opType, hint string, inputs []string, attrs ...message) string {
	out := g.fresh(hint)
	g.node("", opType, inputs, []string{out}, attrs...)
	return out
}

// constant adds an initializer of the data type and shape whose data the field holds, and
// returns its name.
func (g *graph) constant(hint string, dataType int64, dims []int64, data func(*message)) string {
	name := g.fresh(hint)
	var t message
	t.int64s(tensorDims, dims)
	t.varint(tensorDataType, dataType)
	t.string(tensorName, name)
	data(&t)
	g.initializers = append(g.initializers, t)
	return name
}

// doubles adds a constant tensor of doubles of shape dims and returns its name.
func (g *graph) doubles(hint string, dims []int64, vs []float64) string {
	return g.constant(hint, dataDouble, dims, func(t *message) { t.doubles(tensorDoubleData, vs) })
}

// scalar adds a constant double scalar and returns its name.
func (g *graph) scalar(hint string, v float64) string {
	return g.doubles(hint, nil, []float64{v})
}

// int64s adds a constant tensor of int64 of shape dims and returns its name.
func (g *graph) int64s(hint string, dims []int64, vs []int64) string {
	return g.constant(hint, dataInt64, dims, func(t *message) { t.packedInt64s(tensorInt64Data, vs) })
}

// texts adds a constant one-dimensional tensor of strings and returns its name.
func (g *graph) texts(hint string, vs []string) string {
	return g.constant(hint, dataString, []int64{int64(len(vs))}, func(t *message) {
		for _, v := range vs {
			t.string(tensorStringData, v)
		}
	})
}

// input declares a graph input.
func (g *graph) input(name string, elemType int64, shape []dim, doc string) {
	g.inputs = append(g.inputs, valueInfo(name, elemType, shape, doc))
}

// output declares a graph output, which a node must compute.
func (g *graph) output(name string, elemType int64, shape []dim, doc string) {
	g.outputs = append(g.outputs, valueInfo(name, elemType, shape, doc))
}

// proto returns the GraphProto.
func (g *graph) proto(name, doc string) message {
	var m message
	for _, n := range g.nodes {
		m.message(graphNode, n)
	}
	m.string(graphName, name)
	for _, t := range g.initializers {
		m.message(graphInitializer, t)
	}
	m.string(graphDocString, doc)
	for _, v := range g.inputs {
		m.message(graphInput, v)
	}
	for _, v := range g.outputs {
		m.message(graphOutput, v)
	}
	return m
}
