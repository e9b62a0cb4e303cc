package onnx

import (
	"math"
	"strconv"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// This file reads back, with protowire alone, the parts of a ModelProto that Export writes,
// so that the tests check the bytes against onnx.proto's field numbers.

// field is one field of a message in wire format: a varint, a fixed64 or a length-delimited
// value.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

type fields []field

// parse splits a message into its fields.
func parse(t *testing.T, b []byte) fields {
	t.Helper()
	var out fields
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("field %d: unexpected wire type %d", num, typ)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		out = append(out, f)
	}
	return out
}

// all returns the fields numbered num.
func (fs fields) all(num protowire.Number) fields {
	var out fields
	for _, f := range fs {
		if f.num == num {
			out = append(out, f)
		}
	}
	return out
}

// str returns the last string field numbered num ("" when absent).
func (fs fields) str(num protowire.Number) string {
	s := ""
	for _, f := range fs.all(num) {
		s = string(f.b)
	}
	return s
}

// strs returns the strings of a repeated string field.
func (fs fields) strs(num protowire.Number) []string {
	var out []string
	for _, f := range fs.all(num) {
		out = append(out, string(f.b))
	}
	return out
}

// int returns the last varint field numbered num, and whether there is one.
func (fs fields) int(num protowire.Number) (int64, bool) {
	v, ok := int64(0), false
	for _, f := range fs.all(num) {
		if f.typ == protowire.VarintType {
			v, ok = int64(f.v), true
		}
	}
	return v, ok
}

// ints returns a repeated int64 field, packed or not.
func (fs fields) ints(t *testing.T, num protowire.Number) []int64 {
	t.Helper()
	var out []int64
	for _, f := range fs.all(num) {
		if f.typ == protowire.VarintType {
			out = append(out, int64(f.v))
			continue
		}
		for b := f.b; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatalf("field %d: %v", num, protowire.ParseError(n))
			}
			out = append(out, int64(v))
			b = b[n:]
		}
	}
	return out
}

// doubles returns a packed repeated double field.
func (fs fields) doubles(t *testing.T, num protowire.Number) []float64 {
	t.Helper()
	var out []float64
	for _, f := range fs.all(num) {
		for b := f.b; len(b) > 0; {
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				t.Fatalf("field %d: %v", num, protowire.ParseError(n))
			}
			out = append(out, math.Float64frombits(v))
			b = b[n:]
		}
	}
	return out
}

// decoded is a ModelProto as read back.
type decoded struct {
	irVersion      int64
	opsets         map[string]int64
	producer       string
	doc            string
	meta           map[string]string
	graphName      string
	nodes          []decodedNode
	initializers   map[string]decodedTensor
	inputs         []decodedValue
	outputs        []decodedValue
	initializerSeq []string
}

type decodedNode struct {
	name, op, domain string
	inputs, outputs  []string
	attrs            map[string]fields
}

type decodedTensor struct {
	dims     []int64
	dataType int64
	doubles  []float64
	int64s   []int64
	strings  []string
}

// decodedValue is a graph input or output: its element type and shape, each dimension a size
// or a symbolic name.
type decodedValue struct {
	name  string
	elem  int64
	shape []string
	doc   string
}

// decode reads back a ModelProto.
func decode(t *testing.T, b []byte) *decoded {
	t.Helper()
	m := parse(t, b)
	d := &decoded{opsets: map[string]int64{}, meta: map[string]string{}, initializers: map[string]decodedTensor{}}
	d.irVersion, _ = m.int(modelIRVersion)
	d.producer = m.str(modelProducerName)
	d.doc = m.str(modelDocString)
	for _, f := range m.all(modelOpsetImport) {
		o := parse(t, f.b)
		d.opsets[o.str(opsetDomain)], _ = o.int(opsetVersion)
	}
	for _, f := range m.all(modelMetadataProps) {
		e := parse(t, f.b)
		if _, dup := d.meta[e.str(entryKey)]; dup {
			t.Errorf("metadata key %q twice", e.str(entryKey))
		}
		d.meta[e.str(entryKey)] = e.str(entryValue)
	}
	graphs := m.all(modelGraph)
	if len(graphs) != 1 {
		t.Fatalf("%d graphs", len(graphs))
	}
	g := parse(t, graphs[0].b)
	d.graphName = g.str(graphName)
	for _, f := range g.all(graphNode) {
		n := parse(t, f.b)
		dn := decodedNode{name: n.str(nodeName), op: n.str(nodeOpType), domain: n.str(nodeDomain),
			inputs: n.strs(nodeInput), outputs: n.strs(nodeOutput), attrs: map[string]fields{}}
		for _, a := range n.all(nodeAttribute) {
			af := parse(t, a.b)
			dn.attrs[af.str(attrName)] = af
		}
		d.nodes = append(d.nodes, dn)
	}
	for _, f := range g.all(graphInitializer) {
		tf := parse(t, f.b)
		dt, _ := tf.int(tensorDataType)
		name := tf.str(tensorName)
		if _, dup := d.initializers[name]; dup {
			t.Errorf("initializer %q twice", name)
		}
		d.initializers[name] = decodedTensor{dims: tf.ints(t, tensorDims), dataType: dt, doubles: tf.doubles(t, tensorDoubleData),
			int64s: tf.ints(t, tensorInt64Data), strings: tf.strs(tensorStringData)}
		d.initializerSeq = append(d.initializerSeq, name)
	}
	value := func(b []byte) decodedValue {
		v := parse(t, b)
		dv := decodedValue{name: v.str(valueName), doc: v.str(valueDocString)}
		types := v.all(valueType)
		if len(types) != 1 {
			t.Fatalf("value %q: %d types", dv.name, len(types))
		}
		tensor := parse(t, parse(t, types[0].b).all(typeTensor)[0].b)
		dv.elem, _ = tensor.int(tensorElemType)
		for _, sh := range tensor.all(tensorShape) {
			for _, df := range parse(t, sh.b).all(shapeDim) {
				dm := parse(t, df.b)
				if v, ok := dm.int(dimensionValue); ok {
					dv.shape = append(dv.shape, strconv.FormatInt(v, 10))
				} else {
					dv.shape = append(dv.shape, dm.str(dimensionParam))
				}
			}
		}
		return dv
	}
	for _, f := range g.all(graphInput) {
		d.inputs = append(d.inputs, value(f.b))
	}
	for _, f := range g.all(graphOutput) {
		d.outputs = append(d.outputs, value(f.b))
	}
	return d
}

// node returns the node that computes the value name.
func (d *decoded) node(t *testing.T, name string) decodedNode {
	t.Helper()
	for _, n := range d.nodes {
		for _, out := range n.outputs {
			if out == name {
				return n
			}
		}
	}
	t.Fatalf("no node computes %q", name)
	return decodedNode{}
}
