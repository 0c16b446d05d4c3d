package audit

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// canary is a secret-shaped value the audit plants in its arguments; a
// server that sends it back echoes what a model or a user put there.
const canary = "sk-mcpwrapaudit0canary0d3adb33f"

// The sizes of the hostile values.
const (
	hugeString = 1 << 20
	hugeArray  = 50_000
	manyKeys   = 10_000
	deepLevels = 5_000
)

// successPolicy is what a success answer to a probe counts as.
type successPolicy uint8

const (
	successFails successPolicy = iota // the call was invalid: a success misinforms the model
	successWarns                      // allowed by the schema, but a model may believe it did something
	successPasses
)

// probe is one tools/call the audit sends, and what it expects back.
type probe struct {
	name string
	tool string
	args []byte // the arguments member, raw (may be invalid JSON text on purpose)
	// params are the parameter names an error message should mention (any
	// one of them); none: no names check.
	params  []string
	success successPolicy
	// codes are the JSON-RPC error codes that count as a proper refusal.
	codes []int64
	// invalid: the call is invalid, so its answer is an error and must be
	// small.
	invalid bool
	why     string // what the probe sends, for the report
}

// schema is the part of a JSON Schema the probes are derived from.
type schema struct {
	Type                 json.RawMessage    `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	Items                json.RawMessage    `json:"items"`
	Enum                 []json.RawMessage  `json:"enum"`
	Default              json.RawMessage    `json:"default"`
	Minimum              *float64           `json:"minimum"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
}

// kind is the schema's first type that is not "null", or "".
func (s *schema) kind() string {
	if s == nil || len(s.Type) == 0 {
		return ""
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return one
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many)
	for _, t := range many {
		if t != "null" {
			return t
		}
	}
	return ""
}

func (s *schema) items() *schema {
	if s == nil || len(s.Items) == 0 || firstByte(s.Items) != '{' {
		return nil
	}
	var it schema
	if json.Unmarshal(s.Items, &it) != nil {
		return nil
	}
	return &it
}

func (s *schema) closed() bool { return string(bytes.TrimSpace(s.AdditionalProperties)) == "false" }

// valid is a value the schema accepts, as far as the audit can tell.
func (s *schema) valid(depth int) any {
	if s == nil {
		return "mcpwrap-audit"
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.Default) > 0 && string(s.Default) != "null" {
		return s.Default
	}
	switch s.kind() {
	case "integer", "number":
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		m := map[string]any{}
		if depth < 3 {
			for _, k := range s.Required {
				m[k] = s.Properties[k].valid(depth + 1)
			}
		}
		return m
	case "null":
		return nil
	}
	return "mcpwrap-audit"
}

// wrong is a value of another type than the schema's.
func wrong(kind string) any {
	switch kind {
	case "string":
		return 12345
	case "integer", "number":
		return "not-a-number"
	case "boolean":
		return "yes"
	case "array":
		return "not-an-array"
	case "object":
		return "not-an-object"
	}
	return nil
}

// placeholder stands for a raw value spliced into marshalled arguments.
const placeholder = "\x00mcpwrap-audit-placeholder\x00"

// withRaw marshals args with key set to raw JSON text (which may be invalid
// UTF-8 or huge), without building the raw value as a Go value.
func withRaw(args map[string]any, key string, raw []byte) []byte {
	m := clone(args)
	m[key] = placeholder
	b, _ := json.Marshal(m)
	ph, _ := json.Marshal(placeholder)
	return bytes.Replace(b, ph, raw, 1)
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	return c
}

func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// probes derives the calls for one tool from its input schema.
func probes(t tool) []probe {
	var s schema
	if len(t.InputSchema) > 0 && firstByte(t.InputSchema) == '{' {
		_ = json.Unmarshal(t.InputSchema, &s)
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	valid := map[string]any{}
	for _, k := range s.Required {
		valid[k] = s.Properties[k].valid(0)
	}
	// The target of type checks: the first required parameter with a
	// known type, else any with one.
	target := ""
	for _, k := range append(append([]string(nil), s.Required...), names...) {
		if s.Properties[k].kind() != "" && s.Properties[k].kind() != "null" {
			target = k
			break
		}
	}
	str := ""
	for _, k := range append(append([]string(nil), s.Required...), names...) {
		if s.Properties[k].kind() == "string" && len(s.Properties[k].Enum) == 0 {
			str = k
			break
		}
	}
	arr := ""
	for _, k := range names {
		if s.Properties[k].kind() == "array" {
			arr = k
			break
		}
	}
	extra := "api_key"
	for s.Properties[extra] != nil {
		extra += "_x"
	}

	var ps []probe
	add := func(p probe) {
		p.tool = t.Name
		ps = append(ps, p)
	}
	if len(s.Required) > 0 {
		add(probe{name: "missing_required", args: []byte(`{}`), params: s.Required, invalid: true,
			why: "{} although " + strconv.Quote(s.Required[0]) + " is required"})
	}
	if target != "" {
		m := clone(valid)
		m[target] = wrong(s.Properties[target].kind())
		add(probe{name: "wrong_type", args: marshal(m), params: []string{target}, invalid: true,
			why: strconv.Quote(target) + " is not a " + s.Properties[target].kind()})
	}
	{
		m := clone(valid)
		m[extra] = canary
		pol := successWarns
		if s.closed() {
			pol = successFails
		}
		add(probe{name: "unknown_param", args: marshal(m), params: []string{extra}, success: pol, invalid: s.closed(),
			why: "a hallucinated " + strconv.Quote(extra) + " next to the real parameters"})
	}
	nullPol := successFails
	if len(s.Required) == 0 {
		nullPol = successPasses
	}
	add(probe{name: "args_null", args: []byte(`null`), success: nullPol, codes: []int64{-32602}, invalid: nullPol == successFails,
		why: "arguments null"})
	add(probe{name: "args_array", args: []byte(`["mcpwrap-audit",1]`), codes: []int64{-32602}, invalid: true,
		why: "arguments an array"})
	add(probe{name: "args_string", args: []byte(`"mcpwrap-audit"`), codes: []int64{-32602}, invalid: true,
		why: "arguments a string"})
	if str != "" {
		add(probe{name: "huge_string", args: withRaw(valid, str, []byte(`"`+strings.Repeat("A", hugeString)+`"`)),
			success: successPasses, codes: []int64{-32602},
			why: "a 1 MiB " + strconv.Quote(str)})
	}
	if arr != "" || target != "" {
		key, item := arr, `0`
		if key == "" {
			key = target
		} else if it := s.Properties[arr].items(); it != nil && it.kind() != "string" {
			item = `"x"`
		}
		raw := make([]byte, 0, hugeArray*(len(item)+1)+2)
		raw = append(raw, '[')
		for i := range hugeArray {
			if i > 0 {
				raw = append(raw, ',')
			}
			raw = append(raw, item...)
		}
		raw = append(raw, ']')
		p := probe{name: "huge_array", args: withRaw(valid, key, raw), params: []string{key}, invalid: true, codes: []int64{-32602},
			why: "50 000 wrong items in " + strconv.Quote(key)}
		if key == arr && s.Properties[arr].items() == nil {
			p.params, p.invalid, p.success = nil, false, successPasses
		}
		add(p)
	}
	{
		var b bytes.Buffer
		b.WriteString(`{"password":"` + canary + `"`)
		for i := range manyKeys {
			b.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
		}
		raw := b.Bytes()
		args := marshal(valid)
		if len(valid) > 0 {
			args = append(append(raw, ','), args[1:]...)
		} else {
			args = append(raw, '}')
		}
		pol := successPasses
		if s.closed() {
			pol = successFails
		}
		add(probe{name: "many_keys", args: args, success: pol, codes: []int64{-32602}, invalid: s.closed(),
			why: "10 000 unknown keys (one a password)"})
	}
	if target != "" {
		raw := bytes.Repeat([]byte("["), deepLevels)
		raw = append(raw, '0')
		raw = append(raw, bytes.Repeat([]byte("]"), deepLevels)...)
		add(probe{name: "deep_nesting", args: withRaw(valid, target, raw), success: successPasses,
			codes: []int64{-32602, -32700, -32600}, why: "5 000 levels of arrays in " + strconv.Quote(target)})
	}
	key := str
	if key == "" {
		key = extra
	}
	add(probe{name: "invalid_utf8", args: withRaw(valid, key, []byte("\"mcpwrap\xff\xfeaudit\xc3\x28\xed\xa0\x80\"")),
		success: successPasses, codes: []int64{-32602, -32700}, why: "invalid UTF-8 bytes in " + strconv.Quote(key)})
	add(probe{name: "control_chars", args: withRaw(valid, key, []byte(`"a\u0000b\u0007\u001b[31mred\u001b[0m\r\n\u202egnp.exe"`)),
		success: successPasses, codes: []int64{-32602}, why: "NUL, BEL, ANSI escapes and U+202E in " + strconv.Quote(key)})
	return ps
}

// unknownTool is the server-level probe for a tool that does not exist.
const unknownToolName = "mcpwrap_audit_no_such_tool"

func unknownToolProbe() probe {
	return probe{name: "unknown_tool", tool: unknownToolName, args: []byte(`{}`), params: []string{unknownToolName},
		codes: []int64{-32602}, invalid: true, why: "a tool that is not listed"}
}

func callParams(p probe) []byte {
	b := make([]byte, 0, len(p.args)+len(p.tool)+32)
	b = append(b, `{"name":`...)
	b = append(b, marshal(p.tool)...)
	b = append(b, `,"arguments":`...)
	b = append(b, p.args...)
	return append(b, '}')
}
