package render

import (
	"strconv"

	"github.com/vugu/vugu"
)

// appendTree appends t as the JSON array that web/render.js's privoptCreate reads: [type,
// data] for a text or comment, and [type, tag, namespace, attributes, properties, inner HTML
// or null, children] for an element, attributes as [namespace, key, value] and properties as
// [key, JSON value as a string].
func appendTree(b []byte, t *Tree) []byte {
	b = strconv.AppendInt(append(b, '['), int64(t.Type), 10)
	if t.Type != vugu.ElementNode {
		return append(appendString(append(b, ','), t.Data), ']')
	}
	b = appendString(append(b, ','), t.Tag)
	b = appendString(append(b, ','), t.NS)
	b = append(b, ",["...)
	for i, a := range t.Attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(append(b, '['), a.Namespace)
		b = appendString(append(b, ','), a.Key)
		b = append(appendString(append(b, ','), a.Val), ']')
	}
	b = append(b, "],["...)
	for i, p := range t.Props {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(append(b, '['), p.Key)
		b = append(appendString(append(b, ','), string(p.JSONVal)), ']')
	}
	b = append(b, "],"...)
	if t.Inner != nil {
		b = appendString(b, *t.Inner)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, ",["...)
	for i, c := range t.Children {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTree(b, c)
	}
	return append(b, "]]"...)
}

// appendString appends s as a JSON string. Bytes of s that are not UTF-8 are copied as they
// are: passing the text to JavaScript replaces them by U+FFFD, as it does for any Go string.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
