package validate

import (
	"encoding/json"
	"iter"
	"maps"
	"slices"

	"github.com/mcpwrap/mcpwrap/errs"
)

// exhausted reports whether skimming has used up its budget, in which
// case checking stops here.
func (d *decoder) exhausted() bool {
	if d.skimmed < maxSkim {
		return false
	}
	d.partial = true
	return true
}

// skim counts the problems in v without decoding it, once the list of
// violations is full, looking at maxSkim values at most in all. It checks
// JSON types and unknown parameters only; the rules are not run.
func (d *decoder) skim(v any, n *node) {
	if d.exhausted() {
		return
	}
	d.skimmed++
	for n.kind == kPtr && v != nil {
		n = n.elem
	}
	if anyJSON.has(n.kind) {
		return
	}
	if !decodesInto(v).has(n.kind) {
		d.add(errs.Violation{})
		return
	}
	switch x := v.(type) {
	case []any:
		d.skimAll(slices.Values(x), n.elem)
	case map[string]any:
		if n.kind == kStruct {
			d.skimObject(x, n)
			return
		}
		d.skimAll(maps.Values(x), n.elem)
	}
}

// skimAll skims the elements of a list or the values of a map, all of
// plan n.
func (d *decoder) skimAll(elems iter.Seq[any], n *node) {
	for e := range elems {
		if d.exhausted() {
			return
		}
		d.skim(e, n)
	}
}

// kinds is a set of kinds.
type kinds uint16

func (s kinds) has(k kind) bool { return s&(1<<k) != 0 }

// anyJSON are the kinds any JSON value may decode into: an any, a
// json.RawMessage, a json.Unmarshaler.
const anyJSON kinds = 1<<kAny | 1<<kRaw | 1<<kUnmarshal

// decodesInto returns the kinds, other than anyJSON, that the decoded JSON
// value v may decode into.
func decodesInto(v any) kinds {
	switch v.(type) {
	case nil:
		return 1 << kPtr
	case string:
		return 1<<kString | 1<<kTime | 1<<kText
	case bool:
		return 1 << kBool
	case float64, json.Number:
		return 1<<kInt | 1<<kUint | 1<<kFloat
	case []any:
		return 1<<kSlice | 1<<kArray
	case map[string]any:
		return 1<<kStruct | 1<<kMap
	}
	return ^kinds(0) // not a decoded JSON value: nothing to say
}

func (d *decoder) skimObject(m map[string]any, n *node) {
	for k, e := range m {
		if d.exhausted() {
			return
		}
		if i, known := n.byName[k]; known {
			d.skim(e, n.fields[i].node)
		} else if !d.c.cfg.allowUnknown {
			d.skimmed++
			d.add(errs.Violation{})
		}
	}
}
