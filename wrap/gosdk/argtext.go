package gosdk

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonerr"
)

// This file holds the one trick of the adapter that reads go-sdk's error
// sentences. go-sdk v1.8.0's typed tools (mcp.AddTool) answer a call whose
// arguments fail the input schema with SetError(fmt.Errorf("validating
// \"arguments\": %v", err)), where err comes from
// github.com/google/jsonschema-go and is flattened by %v: no type to find
// with errors.As, only text such as
//
//	validating "arguments": validating root: validating /properties/days: type: three has type "string", want "integer"
//	validating "arguments": validating root: required: missing properties: ["days"]
//
// argumentError turns that text into an errs.InvalidArgument naming the
// parameter; argtext_test.go fails when a go-sdk upgrade changes the
// sentence. Arguments that pass the schema but not decoding into In come
// back as the JSON decoder's typed errors, found by type.

// argumentsPrefix starts every argument validation failure of a typed tool.
const argumentsPrefix = `validating "arguments": `

// argumentError returns err as an InvalidArgument when it is go-sdk's
// argument validation or decoding failure of a typed tool; raw holds the
// call's arguments.
//
// go-sdk records its own decoding failure and the handler's error alike
// (SetError), so a decoding failure is believed only when it is a bare
// *json.UnmarshalTypeError (go-sdk's, not wrapped) and raw holds a value
// of its JSON kind at its path (anywhere: go-sdk decodes the arguments
// re-encoded). A handler's failure to decode an upstream's answer,
// wrapped as errors usually are, is not the caller's; nor is a
// *json.SyntaxError, which go-sdk never reports about arguments it has
// already parsed.
func argumentError(err error, raw json.RawMessage) (error, bool) {
	if typ, ok := err.(*json.UnmarshalTypeError); ok {
		if len(raw) > jsonerr.MaxArguments {
			return nil, false
		}
		if a, ok := jsonerr.FromTypeErrorAnywhere(typ, raw); ok {
			return a, true
		}
		return nil, false
	}
	text := err.Error()
	rest, ok := strings.CutPrefix(text, argumentsPrefix)
	if !ok {
		return nil, false
	}
	return errs.Wrap(errs.InvalidArgument, err, "", errs.Violations(schemaViolations(rest)...)), true
}

// schemaViolations reads jsonschema-go's "validating <path>: … <rule>: <text>"
// chain: the innermost path names the parameter, the rule is the keyword
// before the last colon-separated sentence.
func schemaViolations(s string) []errs.Violation {
	path, s := innermostPath(s)
	if u, ok := strings.CutPrefix(s, "unmarshaling arguments: "); ok {
		return []errs.Violation{{Parameter: "arguments", Rule: "json", Message: "the arguments are not a JSON object: " + u}}
	}
	param := parameterOf(path)
	if list, ok := strings.CutPrefix(s, "unexpected additional properties "); ok {
		if names, ok := quotedList(list); ok {
			return perName(param, names, "unknown", func(p string) string { return "unknown parameter " + strconv.Quote(p) })
		}
	}
	rule, msg, ok := strings.Cut(s, ": ")
	if !ok || strings.ContainsAny(rule, " \"") {
		rule, msg = "schema", s
	}
	if v, ok := ruleViolations(param, rule, msg); ok {
		return v
	}
	if param == "" {
		return []errs.Violation{{Parameter: "arguments", Rule: rule, Message: "the arguments fail " + rule + ": " + msg}}
	}
	return []errs.Violation{{Parameter: param, Rule: rule, Message: "parameter " + strconv.Quote(param) + " fails " + rule + ": " + msg}}
}

// innermostPath reads the "validating <path>: " prefixes of s: the last
// path that is not the root, and what follows them.
func innermostPath(s string) (path, rest string) {
	for {
		r, ok := strings.CutPrefix(s, "validating ")
		if !ok {
			return path, s
		}
		p, tail, ok := strings.Cut(r, ": ")
		if !ok {
			return path, s
		}
		if p != "root" {
			path = p
		}
		s = tail
	}
}

// ruleViolations says a required or type failure the way package validate
// says it; ok is false for other rules, or a sentence it cannot read.
func ruleViolations(param, rule, msg string) ([]errs.Violation, bool) {
	switch {
	case rule == "required":
		names, ok := missing(msg)
		if !ok {
			return nil, false
		}
		return perName(param, names, "required", func(p string) string { return "parameter " + strconv.Quote(p) + " is required" }), true
	case rule == "type" && param != "":
		return typeViolation(param, msg)
	case bounds[rule] != "" && param != "":
		return boundViolation(param, rule, msg)
	}
	return nil, false
}

// bounds are jsonschema-go's number keywords, each with its sentence's
// relation and the words package validate says it with.
var bounds = map[string]string{
	"minimum":          " is less than |must be at least ",
	"maximum":          " is greater than |must be at most ",
	"exclusiveMinimum": " is less than or equal to |must be greater than ",
	"exclusiveMaximum": " is greater than or equal to |must be less than ",
}

// boundViolation reads jsonschema-go's "-1/1 is less than 0.000000" (a
// big.Rat, then the bound with %f) as `parameter "line" must be at least
// 0, got -1`.
func boundViolation(param, rule, msg string) ([]errs.Violation, bool) {
	relation, must, _ := strings.Cut(bounds[rule], "|")
	got, bound, ok := strings.Cut(msg, relation)
	if !ok {
		return nil, false
	}
	var r big.Rat
	if _, ok := r.SetString(got); !ok {
		return nil, false
	}
	if r.IsInt() {
		got = r.Num().String()
	} else {
		got = strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".")
	}
	if strings.Contains(bound, ".") {
		bound = strings.TrimRight(strings.TrimRight(bound, "0"), ".")
	}
	expected := strings.TrimPrefix(must, "must be ") + bound
	return []errs.Violation{{Parameter: param, Rule: rule, Expected: expected, Got: got,
		Message: "parameter " + strconv.Quote(param) + " " + must + bound + ", got " + got}}, true
}

// typeViolation reads "three has type \"string\", want \"integer\"" as
// a violation of param's type, without echoing the value.
func typeViolation(param, msg string) ([]errs.Violation, bool) {
	i := strings.LastIndex(msg, ` has type "`)
	if i < 0 {
		return nil, false
	}
	got, want, ok := strings.Cut(msg[i+len(` has type "`):], `", want "`)
	if !ok {
		return nil, false
	}
	want = strings.TrimSuffix(want, `"`)
	return []errs.Violation{{Parameter: param, Rule: "type", Expected: article(want), Got: got,
		Message: "parameter " + strconv.Quote(param) + " must be " + article(want) + ", got " + article(got)}}, true
}

// perName is one violation of rule for each of names under param.
func perName(param string, names []string, rule string, message func(p string) string) []errs.Violation {
	out := make([]errs.Violation, 0, len(names))
	for _, n := range names {
		p := joinParam(param, n)
		out = append(out, errs.Violation{Parameter: p, Rule: rule, Message: message(p)})
	}
	return out
}

// parameterOf turns a schema path (/properties/a/items/properties/b) into
// a parameter path (a[].b).
func parameterOf(path string) string {
	var b strings.Builder
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(parts[i+1])
				i++
			}
		case "items", "prefixItems":
			b.WriteString("[]")
		}
	}
	return b.String()
}

func joinParam(base, name string) string {
	if base == "" {
		return name
	}
	return base + "." + name
}

// missing reads `missing properties: ["a" "b"]`.
func missing(msg string) ([]string, bool) {
	list, ok := strings.CutPrefix(msg, "missing properties: ")
	if !ok {
		return nil, false
	}
	return quotedList(list)
}

// quotedList reads a %q-formatted []string: `["a" "b"]`.
func quotedList(list string) ([]string, bool) {
	list, ok := strings.CutPrefix(list, "[")
	if !ok {
		return nil, false
	}
	list = strings.TrimSuffix(list, "]")
	var names []string
	for list != "" {
		q, err := strconv.QuotedPrefix(list)
		if err != nil {
			return nil, false
		}
		n, _ := strconv.Unquote(q)
		names = append(names, n)
		list = strings.TrimLeft(list[len(q):], " ")
	}
	return names, len(names) > 0
}

// article puts "a" or "an" before a JSON type name.
func article(t string) string {
	if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}
