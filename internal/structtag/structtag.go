// Package structtag reads the struct tags mcpwrap understands, in one place:
// the JSON name encoding/json gives a field, and the mcpwrap:"secret" marker
// that validate and observe both honour.
package structtag

import (
	"reflect"
	"strings"
)

// Key is the struct tag key of mcpwrap's own options, as in mcpwrap:"secret".
const Key = "mcpwrap"

// JSON is how encoding/json names a struct field.
type JSON struct {
	// Name is the field's name in JSON: the tag's name, or the Go name.
	Name string
	// Named says the tag gave the name (an embedded struct without one is
	// flattened by encoding/json).
	Named bool
	// Skip says the tag is "-": encoding/json ignores the field.
	Skip bool
	// Options are the tag's options after the name ("omitempty,string").
	Options string
}

// JSONOf parses f's json tag.
func JSONOf(f reflect.StructField) JSON {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return JSON{Name: f.Name, Skip: true}
	}
	name, opts, _ := strings.Cut(tag, ",")
	j := JSON{Name: name, Named: name != "", Options: opts}
	if name == "" {
		j.Name = f.Name
	}
	return j
}

// HasOption reports whether the json tag carries option o.
func (j JSON) HasOption(o string) bool {
	for opt := range strings.SplitSeq(j.Options, ",") {
		if opt == o {
			return true
		}
	}
	return false
}

// Secret reports whether f is tagged mcpwrap:"secret": its value is never
// quoted in a message, a log line, a span or a result.
func Secret(f reflect.StructField) bool {
	for opt := range strings.SplitSeq(f.Tag.Get(Key), ",") {
		if opt == "secret" {
			return true
		}
	}
	return false
}

// Innermost follows t's pointers, slices, arrays and maps to the type
// they hold: the struct whose tags count for a field of type t.
func Innermost(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return t
		}
	}
}
