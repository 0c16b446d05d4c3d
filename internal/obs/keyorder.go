package obs

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// keyOrders remembers, per tool, the sorted keys of its arguments and
// which of them are secret, for appendSizes; at most maxAttrSets tools.
type keyOrders struct {
	m sync.Map // tool → *keyOrder
	n atomic.Int32
}

type keyOrder struct {
	keys   []string // sorted, every one plainKey
	secret []bool
	size   int // the bytes of the keys and the JSON around them
}

// appendSizes writes what appendArgumentSizes(r, m) would, through the
// tool's key order; ok is false when m's keys are not the ones
// remembered (or cannot be), and the caller takes the general path.
func (k *keyOrders) appendSizes(r *redact.Redactor, tool string, m map[string]any) (b []byte, ok bool) {
	ko := k.order(r, tool, m)
	if ko == nil {
		return nil, false
	}
	return ko.appendJSON(make([]byte, 0, ko.size+16*len(ko.keys)), m)
}

// appendJSON appends m's arguments by name in the key order: the keys
// are plain and the texts plain ASCII, so nothing needs escaping; ok is
// false, and b is cut back, when a remembered key is missing from m.
func (ko *keyOrder) appendJSON(b []byte, m map[string]any) (_ []byte, ok bool) {
	start := len(b)
	b = append(b, '{')
	for i, key := range ko.keys {
		v, present := m[key]
		if !present {
			return b[:start], false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":"`...)
		if ko.secret[i] {
			b = append(b, redact.Redacted...)
		} else {
			b = appendSizeOf(b, v)
		}
		b = append(b, '"')
	}
	return append(b, '}'), true
}

// Bounds of a remembered key order: as many keys as appendArgumentSizes
// writes, and at most maxKeyOrderBytes of them, so that the orders of
// maxAttrSets tools hold at most 4 MiB.
const (
	maxKeyOrderKeys  = 256
	maxKeyOrderBytes = 4 << 10
)

// order returns the tool's key order, remembering m's the first time;
// nil when m's keys are not the ones remembered (by count: a missing one
// the caller finds) or cannot be.
func (k *keyOrders) order(r *redact.Redactor, tool string, m map[string]any) *keyOrder {
	var ko *keyOrder
	if v, found := k.m.Load(tool); found {
		ko = v.(*keyOrder)
	} else if ko = newKeyOrder(r, m); ko == nil {
		return nil
	} else if k.n.Add(1) <= maxAttrSets {
		k.m.Store(tool, ko)
	}
	if len(ko.keys) != len(m) {
		return nil
	}
	return ko
}

// newKeyOrder is m's key order, or nil when a key is not plain or there
// are too many to remember.
func newKeyOrder(r *redact.Redactor, m map[string]any) *keyOrder {
	if len(m) > maxKeyOrderKeys {
		return nil
	}
	ko := &keyOrder{keys: make([]string, 0, len(m)), size: 2}
	for key := range m {
		if !plainKey(key) {
			return nil
		}
		ko.keys = append(ko.keys, key)
		ko.size += len(key) + 6
		if ko.size > maxKeyOrderBytes {
			return nil
		}
	}
	slices.Sort(ko.keys)
	ko.secret = make([]bool, len(ko.keys))
	for i, key := range ko.keys {
		ko.secret[i] = r.IsSecretName(key)
	}
	return ko
}
