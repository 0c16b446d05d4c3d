package validate

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"time"
)

// schemaOf derives the JSON Schema of one value from its plan and the
// validate tag that applies to it (the field's tag, or what follows a
// "dive" for elements). nullable adds null to the type (an optional
// pointer). visiting breaks recursive types: a struct met again inside
// itself is described as a plain object.
func (c *core) schemaOf(n *node, tag string, nullable bool) map[string]any {
	return c.schemaVisit(n, tag, nullable, map[*node]bool{})
}

func (c *core) schemaVisit(n *node, tag string, nullable bool, visiting map[*node]bool) map[string]any {
	s := map[string]any{}
	cl := cOther
	switch n.kind {
	case kPtr:
		s = c.schemaVisit(n.elem, tag, false, visiting)
		if nullable {
			if t, ok := s["type"].(string); ok {
				s["type"] = []string{t, "null"}
			}
		}
		return s
	case kString, kText:
		s["type"] = "string"
		cl = cString
	case kBool:
		s["type"] = "boolean"
		cl = cBool
	case kInt, kUint:
		s["type"] = "integer"
		cl = cNumber
		if lo, hi, ok := intRange(n.typ); ok {
			s["minimum"] = lo
			if hi != "" {
				s["maximum"] = hi
			}
		}
	case kFloat:
		s["type"] = "number"
		cl = cNumber
	case kTime:
		s["type"] = "string"
		s["format"] = "date-time"
		cl = cTime
	case kStruct:
		s["type"] = "object"
		if visiting[n] {
			return s
		}
		visiting[n] = true
		props := make(map[string]any, len(n.fields))
		var req []string
		for _, f := range n.fields {
			nullable := f.node.kind == kPtr && !f.required
			fs := c.schemaVisit(f.node, f.tag, nullable, visiting)
			if f.desc != "" {
				fs["description"] = f.desc
			}
			if f.secret {
				fs["writeOnly"] = true
			}
			props[f.name] = fs
			if f.required {
				req = append(req, f.name)
			}
		}
		delete(visiting, n)
		s["properties"] = props
		if len(req) > 0 {
			s["required"] = req
		}
		if !c.cfg.allowUnknown {
			s["additionalProperties"] = false
		}
	case kSlice, kArray:
		s["type"] = "array"
		cl = cList
		rest, _ := afterDive(tag)
		en := n.elem
		s["items"] = c.schemaVisit(en, rest, en.kind == kPtr && !hasRule(beforeDive(rest), "required"), visiting)
		if n.kind == kArray {
			s["minItems"], s["maxItems"] = n.typ.Len(), n.typ.Len()
		}
	case kMap:
		s["type"] = "object"
		cl = cMap
		rest, _ := afterDive(tag)
		if keys := keysRules(rest); keys != "" {
			ks := map[string]any{"type": "string"}
			applyRules(ks, splitRules(keys), cString, false)
			delete(ks, "type")
			s["propertyNames"] = ks
		}
		rest = stripKeys(rest)
		en := n.elem
		s["additionalProperties"] = c.schemaVisit(en, rest, en.kind == kPtr && !hasRule(beforeDive(rest), "required"), visiting)
	default: // kAny, kRaw, kUnmarshal: any JSON value
		return s
	}
	own := splitRules(beforeDive(tag))
	omitempty := false
	for _, r := range own {
		if r.tag == "omitempty" {
			omitempty = true
		}
	}
	applyRules(s, own, cl, omitempty)
	return s
}

// intRange is the range of a sized integer type, as JSON numbers; ok is
// false for 64-bit signed types, whose range every JSON integer a model
// would send already fits.
func intRange(t reflect.Type) (lo, hi json.Number, ok bool) {
	switch t.Kind() {
	case reflect.Int8:
		return "-128", "127", true
	case reflect.Int16:
		return "-32768", "32767", true
	case reflect.Int32:
		return "-2147483648", "2147483647", true
	case reflect.Uint8:
		return "0", "255", true
	case reflect.Uint16:
		return "0", "65535", true
	case reflect.Uint32:
		return "0", "4294967295", true
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return "0", "", true
	}
	return "", "", false
}

// applyRules adds the keywords for a value's own rules to s. With
// omitempty, the zero value is accepted whatever the rules say, so the
// keywords go into {"anyOf": [zero, rules]}.
func applyRules(s map[string]any, rules []rule, cl class, omitempty bool) {
	k := map[string]any{}
	var all []any
	num := func(p string) (json.Number, bool) {
		if _, err := strconv.ParseFloat(p, 64); err != nil {
			return "", false
		}
		return json.Number(p), true
	}
	count := func(p string, delta int) (int, bool) {
		n, err := strconv.Atoi(p)
		if err != nil || n+delta < 0 {
			return 0, false
		}
		return n + delta, true
	}
	lenKeys := map[class][2]string{cString: {"minLength", "maxLength"}, cList: {"minItems", "maxItems"}, cMap: {"minProperties", "maxProperties"}}
	pattern := func(p string) { all = append(all, map[string]any{"pattern": p}) }
	for _, r := range rules {
		p := r.param
		if lk, ok := lenKeys[cl]; ok {
			switch r.tag {
			case "min", "gte":
				if n, ok := count(p, 0); ok {
					tighten(k, lk[0], n, true)
				}
			case "max", "lte":
				if n, ok := count(p, 0); ok {
					tighten(k, lk[1], n, false)
				}
			case "len":
				if n, ok := count(p, 0); ok {
					tighten(k, lk[0], n, true)
					tighten(k, lk[1], n, false)
				}
			case "gt":
				if n, ok := count(p, 1); ok {
					tighten(k, lk[0], n, true)
				}
			case "lt":
				if n, ok := count(p, -1); ok {
					tighten(k, lk[1], n, false)
				}
			}
		}
		if cl == cNumber {
			if n, ok := num(p); ok {
				switch r.tag {
				case "min", "gte":
					k["minimum"] = n
				case "max", "lte":
					k["maximum"] = n
				case "gt":
					k["exclusiveMinimum"] = n
				case "lt":
					k["exclusiveMaximum"] = n
				case "eq", "len":
					k["const"] = n
				case "ne":
					k["not"] = map[string]any{"const": n}
				}
			}
			if r.tag == "oneof" {
				var enum []any
				for _, v := range oneofValues(p) {
					if n, ok := num(v); ok {
						enum = append(enum, n)
					}
				}
				k["enum"] = enum
			}
		}
		if cl == cList && r.tag == "unique" {
			k["uniqueItems"] = true
		}
		if cl != cString {
			continue
		}
		switch r.tag {
		case "eq":
			k["const"] = p
		case "ne":
			k["not"] = map[string]any{"const": p}
		case "oneof":
			var enum []any
			for _, v := range oneofValues(p) {
				enum = append(enum, v)
			}
			k["enum"] = enum
		case "email":
			k["format"] = "email"
		case "url", "uri":
			k["format"] = "uri"
		case "http_url":
			k["format"] = "uri"
			pattern("^[hH][tT][tT][pP][sS]?://")
		case "uuid", "uuid3", "uuid4", "uuid5", "uuid_rfc4122", "uuid3_rfc4122", "uuid4_rfc4122", "uuid5_rfc4122":
			k["format"] = "uuid"
		case "hostname", "hostname_rfc1123", "fqdn":
			k["format"] = "hostname"
		case "ipv4", "ip4_addr":
			k["format"] = "ipv4"
		case "ipv6", "ip6_addr":
			k["format"] = "ipv6"
		case "ip", "ip_addr":
			all = append(all, map[string]any{"anyOf": []any{map[string]any{"format": "ipv4"}, map[string]any{"format": "ipv6"}}})
		case "datetime":
			switch p {
			case time.RFC3339:
				k["format"] = "date-time"
			case time.DateOnly:
				k["format"] = "date"
			}
		case "alphanum":
			pattern("^[a-zA-Z0-9]+$")
		case "alpha":
			pattern("^[a-zA-Z]+$")
		case "numeric":
			pattern(`^[-+]?[0-9]+(?:\.[0-9]+)?$`)
		case "number":
			pattern("^[0-9]+$")
		case "startswith":
			pattern("^" + regexp.QuoteMeta(p))
		case "endswith":
			pattern(regexp.QuoteMeta(p) + "$")
		case "contains":
			pattern(regexp.QuoteMeta(p))
		case "excludes":
			all = append(all, map[string]any{"not": map[string]any{"pattern": regexp.QuoteMeta(p)}})
		}
	}
	if len(all) == 1 {
		for kw, v := range all[0].(map[string]any) {
			if _, taken := k[kw]; !taken {
				k[kw] = v
				all = nil
			}
		}
	}
	if len(all) > 0 {
		k["allOf"] = all
	}
	if len(k) == 0 {
		return
	}
	if omitempty {
		s["anyOf"] = []any{zeroSchema(cl), k}
		return
	}
	for kw, v := range k {
		if cur, ok := s[kw]; ok && (kw == "minimum" || kw == "maximum") {
			s[kw] = tighterNumber(cur, v, kw == "minimum")
			continue
		}
		s[kw] = v
	}
}

// tighten sets a length keyword, keeping the stricter of two limits.
func tighten(k map[string]any, kw string, n int, lower bool) {
	if cur, ok := k[kw].(int); ok && ((lower && cur > n) || (!lower && cur < n)) {
		return
	}
	k[kw] = n
}

// tighterNumber returns the stricter of two numeric limits.
func tighterNumber(a, b any, lower bool) any {
	fa, ea := strconv.ParseFloat(string(a.(json.Number)), 64)
	fb, eb := strconv.ParseFloat(string(b.(json.Number)), 64)
	if ea != nil || eb != nil {
		return b
	}
	if (lower && math.Max(fa, fb) == fa) || (!lower && math.Min(fa, fb) == fa) {
		return a
	}
	return b
}

// zeroSchema accepts exactly the zero value of a class, which omitempty
// lets through whatever the other rules say.
func zeroSchema(cl class) map[string]any {
	switch cl {
	case cString:
		return map[string]any{"const": ""}
	case cNumber:
		return map[string]any{"const": 0}
	case cBool:
		return map[string]any{"const": false}
	case cList:
		return map[string]any{"maxItems": 0}
	case cMap:
		return map[string]any{"maxProperties": 0}
	}
	return map[string]any{}
}
