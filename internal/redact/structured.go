package redact

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
)

// The bounds of ScrubStructured: past them the structured content is not
// scrubbed but left out, which an error result can afford (its text says
// what failed). The answer-size cap (1 MiB by default) keeps a result far
// below maxStructuredBytes; Go's JSON decoder stops at 10 000 levels.
const (
	maxStructuredDepth = 1000
	maxStructuredBytes = 16 << 20
)

// Scrubbed is ScrubStructured's answer.
type Scrubbed struct {
	// Value is the scrubbed copy, or the value itself when nothing changed.
	Value any
	// Changed says Value is a copy that differs from the value.
	Changed bool
	// Dropped says the value was too deep or too large to scrub, or could
	// not be encoded: send no structured content.
	Dropped bool
	// Secrets are the values found under secret keys, for the result's text
	// to be scrubbed of them too.
	Secrets []string
}

// ScrubStructured applies Scrub's rule to v, the structured content of an
// error result the model will read, everywhere in it: every string, keys
// included, is scrubbed of known and of secret-shaped text, and the whole
// value under a secret key (password, token, api_key…, the names of
// NewRedactor) becomes Redacted; those values are scrubbed from every other
// string too. v is never modified: what changed is copied. A value of
// another type than JSON's (a struct, a typed map, json.RawMessage) is
// encoded and decoded first. The cost is linear in v's size, and bounded:
// a value deeper than maxStructuredDepth or larger than maxStructuredBytes
// is Dropped.
func (r *Redactor) ScrubStructured(v any, known []string) Scrubbed {
	s := structScrub{r: r.orDefault(), budget: maxStructuredBytes}
	ok := s.collect(v, 0)
	if s.foreign {
		// Not made of JSON's types: scrubbed as the SDK will send it.
		if v, ok = s.decode(v); ok {
			s = structScrub{r: s.r, budget: maxStructuredBytes, decoded: true}
			ok = s.collect(v, 0)
		}
	}
	if !ok {
		return Scrubbed{Dropped: true}
	}
	s.known = append(append([]string(nil), known...), s.found...)
	out, changed := s.scrub(v)
	return Scrubbed{Value: out, Changed: changed || s.decoded, Secrets: s.found}
}

// structScrub is one ScrubStructured: collect walks the value once, within
// the bounds, and finds the secret keys' values; scrub copies what changes.
type structScrub struct {
	r       *Redactor
	known   []string
	found   []string
	budget  int
	foreign bool // collect met a type that is not JSON's
	decoded bool // the value was re-encoded: the copy is sent, not v
}

// decode returns v encoded and decoded: made of JSON's types (maps of any,
// slices of any, strings, json.Number, booleans, nil).
func (s *structScrub) decode(v any) (any, bool) {
	b, err := json.Marshal(v)
	if err != nil || len(b) > maxStructuredBytes {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil {
		return nil, false
	}
	return out, true
}

// collect walks v within the bounds, recording the string leaves of the
// values under secret keys; false when v is past a bound or holds a type
// that is not JSON's (foreign).
func (s *structScrub) collect(v any, depth int) bool {
	s.budget--
	if depth > maxStructuredDepth || s.budget < 0 {
		return false
	}
	switch x := v.(type) {
	case nil, bool, float64, float32, json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
	case string:
		s.budget -= len(x)
	case map[string]any:
		if !s.collectObject(x, depth) {
			return false
		}
	case []any:
		for _, e := range x {
			if !s.collect(e, depth+1) {
				return false
			}
		}
	default:
		s.foreign = true
		return false
	}
	return s.budget >= 0
}

// collectObject is collect for an object: the values under secret names
// are collected, every member is walked.
func (s *structScrub) collectObject(m map[string]any, depth int) bool {
	for k, e := range m {
		s.budget -= len(k)
		if s.r.IsSecretName(k) {
			collect(reflect.ValueOf(e), &s.found, 0)
		}
		if !s.collect(e, depth+1) {
			return false
		}
	}
	return true
}

// scrub returns v scrubbed, and whether that changed it; only the maps and
// slices on the way to a change are copied.
func (s *structScrub) scrub(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if t := s.r.scrub(x, s.known); t != x {
			return t, true
		}
	case map[string]any:
		if out := s.scrubMap(x); out != nil {
			return out, true
		}
	case []any:
		if out := s.scrubSlice(x); out != nil {
			return out, true
		}
	}
	return v, false
}

// scrubMap returns a scrubbed copy of m, nil when nothing in it changed:
// keys scrubbed, the values under secret keys Redacted, the others
// scrubbed.
func (s *structScrub) scrubMap(m map[string]any) map[string]any {
	var out map[string]any
	for k, e := range m {
		nk := s.r.scrub(k, s.known)
		var ne any = Redacted
		changed := true
		if e == nil || !s.r.IsSecretName(k) {
			ne, changed = s.scrub(e)
		}
		if !changed && nk == k {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		delete(out, k)
		out[nk] = ne
	}
	return out
}

// scrubSlice returns a scrubbed copy of a, nil when nothing in it changed.
func (s *structScrub) scrubSlice(a []any) []any {
	var out []any
	for i, e := range a {
		ne, changed := s.scrub(e)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]any(nil), a...)
		}
		out[i] = ne
	}
	return out
}
