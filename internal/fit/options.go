package fit

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/privopt/privopt/pkg/core/mech"
)

// Option is one setting of a mechanism: an exported field of its type, which mech.ByName
// returns with its zero value meaning "the default the plan computes from public quantities".
type Option struct {
	// Name is the field's name.
	Name string `json:"name"`
	// Kind is "string", "float", "int", "uint" or "bool".
	Kind string `json:"kind"`
}

// Options lists the settings of the named mechanism: the exported fields of its type whose
// kind is a string, a float, an integer or a bool, in declaration order. A mechanism that is
// not a struct (or a pointer to one) has none.
func Options(name string) ([]Option, error) {
	m, err := mech.ByName(name)
	if err != nil {
		return nil, err
	}
	t := reflect.TypeOf(m)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, nil
	}
	var out []Option
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		if k := kindOf(f.Type.Kind()); k != "" {
			out = append(out, Option{Name: f.Name, Kind: k})
		}
	}
	return out, nil
}

// kindOf names the option kind of a field kind, or "" for a kind that is not an option.
func kindOf(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint"
	case reflect.Bool:
		return "bool"
	}
	return ""
}

// Mechanism returns the named mechanism with the given options set: a copy of the registered
// value (mech.ByName) whose exported fields named in options are parsed from their text
// (strconv's syntax; floats must be finite). An unknown field, a field of another kind or a
// value that does not parse is an error naming the field; fields not named keep their default.
// Whether a value is sensible is the mechanism's Plan to check.
func Mechanism(name string, options map[string]string) (mech.Mechanism, error) {
	m, err := mech.ByName(name)
	if err != nil {
		return nil, err
	}
	if len(options) == 0 {
		return m, nil
	}
	v := reflect.ValueOf(m)
	isPtr := v.Kind() == reflect.Pointer
	if isPtr {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("fit: the mechanism %q has no settings", name)
	}
	c := reflect.New(v.Type()) // a fresh copy: the registered value is never changed
	c.Elem().Set(v)
	names := make([]string, 0, len(options))
	for k := range options {
		names = append(names, k)
	}
	slices.Sort(names) // the first error is the same on every call
	for _, field := range names {
		if err := setField(c.Elem(), field, options[field]); err != nil {
			return nil, fmt.Errorf("fit: mechanism %q, setting %s: %w", name, field, err)
		}
	}
	if isPtr {
		return c.Interface().(mech.Mechanism), nil
	}
	return c.Elem().Interface().(mech.Mechanism), nil
}

// setField parses text into the exported field of the struct s.
func setField(s reflect.Value, field, text string) error {
	sf, ok := s.Type().FieldByName(field)
	if !ok || !sf.IsExported() || len(sf.Index) != 1 || kindOf(sf.Type.Kind()) == "" {
		return fmt.Errorf("no such setting")
	}
	f := s.FieldByIndex(sf.Index)
	switch kindOf(f.Kind()) {
	case "string":
		f.SetString(text)
	case "float":
		v, err := strconv.ParseFloat(text, f.Type().Bits())
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%q is not a finite number", text)
		}
		f.SetFloat(v)
	case "int":
		v, err := strconv.ParseInt(text, 10, f.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not an integer", text)
		}
		f.SetInt(v)
	case "uint":
		v, err := strconv.ParseUint(text, 10, f.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not a non-negative integer", text)
		}
		f.SetUint(v)
	case "bool":
		v, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		f.SetBool(v)
	}
	return nil
}
