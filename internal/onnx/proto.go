package onnx

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the messages of onnx.proto (github.com/onnx/onnx, onnx/onnx.proto) that
// Export writes.
const (
	// ModelProto
	modelIRVersion       protowire.Number = 1
	modelProducerName    protowire.Number = 2
	modelProducerVersion protowire.Number = 3
	modelDocString       protowire.Number = 6
	modelGraph           protowire.Number = 7
	modelOpsetImport     protowire.Number = 8
	modelMetadataProps   protowire.Number = 14

	// OperatorSetIdProto
	opsetDomain  protowire.Number = 1
	opsetVersion protowire.Number = 2

	// StringStringEntryProto
	entryKey   protowire.Number = 1
	entryValue protowire.Number = 2

	// GraphProto
	graphNode        protowire.Number = 1
	graphName        protowire.Number = 2
	graphInitializer protowire.Number = 5
	graphDocString   protowire.Number = 10
	graphInput       protowire.Number = 11
	graphOutput      protowire.Number = 12

	// NodeProto
	nodeInput     protowire.Number = 1
	nodeOutput    protowire.Number = 2
	nodeName      protowire.Number = 3
	nodeOpType    protowire.Number = 4
	nodeAttribute protowire.Number = 5
	nodeDomain    protowire.Number = 7

	// AttributeProto
	attrName    protowire.Number = 1
	attrI       protowire.Number = 3
	attrInts    protowire.Number = 8
	attrStrings protowire.Number = 9
	attrType    protowire.Number = 20

	// TensorProto
	tensorDims       protowire.Number = 1
	tensorDataType   protowire.Number = 2
	tensorStringData protowire.Number = 6
	tensorInt64Data  protowire.Number = 7
	tensorName       protowire.Number = 8
	tensorDoubleData protowire.Number = 10

	// ValueInfoProto
	valueName      protowire.Number = 1
	valueType      protowire.Number = 2
	valueDocString protowire.Number = 3

	// TypeProto, TypeProto.Tensor, TensorShapeProto and TensorShapeProto.Dimension
	typeTensor     protowire.Number = 1
	tensorElemType protowire.Number = 1
	tensorShape    protowire.Number = 2
	shapeDim       protowire.Number = 1
	dimensionValue protowire.Number = 1
	dimensionParam protowire.Number = 2
)

// AttributeProto.AttributeType values.
const (
	attributeInt     = 2
	attributeInts    = 7
	attributeStrings = 8
)

// TensorProto.DataType values.
const (
	dataInt64  = 7
	dataString = 8
	dataDouble = 11
)

// message is a protobuf message being written: its fields in wire format.
type message []byte

// varint appends a varint field (int64, int32 and enum fields).
func (m *message) varint(n protowire.Number, v int64) {
	*m = protowire.AppendTag(*m, n, protowire.VarintType)
	*m = protowire.AppendVarint(*m, uint64(v))
}

// string appends a string or bytes field.
func (m *message) string(n protowire.Number, s string) {
	*m = protowire.AppendTag(*m, n, protowire.BytesType)
	*m = protowire.AppendString(*m, s)
}

// message appends an embedded message field.
func (m *message) message(n protowire.Number, sub message) {
	*m = protowire.AppendTag(*m, n, protowire.BytesType)
	*m = protowire.AppendBytes(*m, sub)
}

// int64s appends a repeated int64 field, one value a field (for fields declared without
// [packed = true]).
func (m *message) int64s(n protowire.Number, vs []int64) {
	for _, v := range vs {
		m.varint(n, v)
	}
}

// packedInt64s appends a packed repeated int64 field.
func (m *message) packedInt64s(n protowire.Number, vs []int64) {
	var packed []byte
	for _, v := range vs {
		packed = protowire.AppendVarint(packed, uint64(v))
	}
	*m = protowire.AppendTag(*m, n, protowire.BytesType)
	*m = protowire.AppendBytes(*m, packed)
}

// doubles appends a packed repeated double field.
func (m *message) doubles(n protowire.Number, vs []float64) {
	packed := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		packed = protowire.AppendFixed64(packed, math.Float64bits(v))
	}
	*m = protowire.AppendTag(*m, n, protowire.BytesType)
	*m = protowire.AppendBytes(*m, packed)
}

// entry returns a StringStringEntryProto.
func entry(key, value string) message {
	var m message
	m.string(entryKey, key)
	m.string(entryValue, value)
	return m
}

// opset returns an OperatorSetIdProto.
func opset(domain string, version int64) message {
	var m message
	m.string(opsetDomain, domain)
	m.varint(opsetVersion, version)
	return m
}

// dim is a dimension of a graph input's or output's shape: a size, or a symbolic name.
type dim struct {
	size  int64
	param string
}

// valueInfo returns a ValueInfoProto: a tensor of the element type and shape.
func valueInfo(name string, elemType int64, shape []dim, doc string) message {
	var sh message
	for _, d := range shape {
		var dm message
		if d.param != "" {
			dm.string(dimensionParam, d.param)
		} else {
			dm.varint(dimensionValue, d.size)
		}
		sh.message(shapeDim, dm)
	}
	var tensor message
	tensor.varint(tensorElemType, elemType)
	tensor.message(tensorShape, sh)
	var typ message
	typ.message(typeTensor, tensor)
	var m message
	m.string(valueName, name)
	m.message(valueType, typ)
	if doc != "" {
		m.string(valueDocString, doc)
	}
	return m
}

// intAttribute returns an AttributeProto of type INT.
func intAttribute(name string, v int64) message {
	var m message
	m.string(attrName, name)
	m.varint(attrType, attributeInt)
	m.varint(attrI, v)
	return m
}

// intsAttribute returns an AttributeProto of type INTS.
func intsAttribute(name string, vs []int64) message {
	var m message
	m.string(attrName, name)
	m.varint(attrType, attributeInts)
	m.int64s(attrInts, vs)
	return m
}

// stringsAttribute returns an AttributeProto of type STRINGS.
func stringsAttribute(name string, vs []string) message {
	var m message
	m.string(attrName, name)
	m.varint(attrType, attributeStrings)
	for _, v := range vs {
		m.string(attrStrings, v)
	}
	return m
}
