// Package paging finds the parameter of a tool's input schema that bounds
// its answer (limit, page, cursor…), for the answer-size cap's advice: both
// SDK adapters fill call.Info.Paging with it.
package paging

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Param returns the first (in name order) property of the JSON Schema
// schema — any value that encodes to one: a map, json.RawMessage, an SDK's
// schema type — whose name says it bounds an answer, "" when none does or
// schema is not an object schema.
func Param(schema any) string {
	raw, ok := schemaJSON(schema)
	if !ok {
		return ""
	}
	var obj struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	names := slices.Sorted(maps.Keys(obj.Properties))
	if i := slices.IndexFunc(names, parameter); i >= 0 {
		return names[i]
	}
	return ""
}

// schemaJSON is the schema's JSON: as given, or marshalled.
func schemaJSON(schema any) ([]byte, bool) {
	switch s := schema.(type) {
	case nil:
		return nil, false
	case json.RawMessage:
		return s, true
	case []byte:
		return s, true
	}
	raw, err := json.Marshal(schema)
	return raw, err == nil
}

// parameter reports whether a parameter of this name bounds an
// answer: a word of its name (split at '_', '-', '.' and camelCase) is
// limit, page, cursor, offset, max, per, skip or take ("limit",
// "pageSize", "max_results", "perPage", "nextCursor"), or the whole name
// is count, first, last, top, lines, range, after, before or size.
func parameter(name string) bool {
	switch strings.ToLower(name) {
	case "count", "first", "last", "top", "lines", "range", "after", "before", "size":
		return true
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if !wordEnds(name, i) {
			continue
		}
		switch strings.ToLower(name[start:i]) {
		case "limit", "page", "cursor", "offset", "max", "per", "skip", "take":
			return true
		}
		start = i // an upper-case letter begins the next word
		if i < len(name) && !isUpper(name[i]) {
			start = i + 1 // a separator belongs to no word
		}
	}
	return false
}

// wordEnds reports whether a word of name ends before name[i]: at the end,
// at a separator ('_', '-', '.', ' ') or where camelCase turns upper-case.
func wordEnds(name string, i int) bool {
	if i == len(name) {
		return true
	}
	switch name[i] {
	case '_', '-', '.', ' ':
		return true
	}
	return i > 0 && isUpper(name[i]) && 'a' <= name[i-1] && name[i-1] <= 'z'
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
