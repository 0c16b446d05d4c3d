package validate

import (
	"encoding/json"

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
	// Any JSON may become an any, a json.RawMessage or a json.Unmarshaler.
	free := n.kind == kAny || n.kind == kRaw || n.kind == kUnmarshal
	ok := true
	switch x := v.(type) {
	case nil:
		ok = free || n.kind == kPtr
	case string:
		ok = free || n.kind == kString || n.kind == kTime || n.kind == kText
	case bool:
		ok = free || n.kind == kBool
	case float64, json.Number:
		ok = free || n.kind == kInt || n.kind == kUint || n.kind == kFloat
	case []any:
		ok = free || n.kind == kSlice || n.kind == kArray
		if !free && ok {
			for _, e := range x {
				if d.exhausted() {
					return
				}
				d.skim(e, n.elem)
			}
		}
	case map[string]any:
		ok = free || n.kind == kStruct || n.kind == kMap
		if !free && n.kind == kMap {
			for _, e := range x {
				if d.exhausted() {
					return
				}
				d.skim(e, n.elem)
			}
		}
		if !free && n.kind == kStruct {
			d.skimObject(x, n)
		}
	}
	if !ok {
		d.add(errs.Violation{})
	}
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
