package validate

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// class groups reflect kinds by how their rules read.
type class uint8

const (
	cOther class = iota
	cString
	cNumber
	cList
	cMap
	cTime
	cBool
)

func classOf(k reflect.Kind, t reflect.Type) class {
	if k == reflect.Struct && t == timeType {
		return cTime
	}
	return kindClasses[k]
}

// kindClasses are the classes of the reflect kinds other than cOther.
var kindClasses = map[reflect.Kind]class{
	reflect.String: cString,
	reflect.Int:    cNumber, reflect.Int8: cNumber, reflect.Int16: cNumber, reflect.Int32: cNumber, reflect.Int64: cNumber,
	reflect.Uint: cNumber, reflect.Uint8: cNumber, reflect.Uint16: cNumber, reflect.Uint32: cNumber, reflect.Uint64: cNumber,
	reflect.Float32: cNumber, reflect.Float64: cNumber,
	reflect.Slice: cList, reflect.Array: cList,
	reflect.Map:  cMap,
	reflect.Bool: cBool,
}

// bounds are the lower and upper limits a field's rules set, used to say
// "between 1 and 14" whichever of the two failed.
type bounds struct {
	lo, hi string
}

// boundsOf reads min/gte and max/lte from a rule list.
func boundsOf(rules []rule) bounds {
	var b bounds
	for _, r := range rules {
		switch r.tag {
		case "min", "gte":
			b.lo = r.param
		case "max", "lte":
			b.hi = r.param
		}
	}
	return b
}

// fixedPhrases are the rules whose sentence depends on nothing else: what
// the parameter must be (after "must "), and what was expected.
var fixedPhrases = map[string][2]string{
	"email":              {"be an email address", "an email address"},
	"url":                {"be " + urlExample, urlExample},
	"http_url":           {"be " + httpURLExample, httpURLExample},
	"https_url":          {"be " + httpURLExample, httpURLExample},
	"uri":                {"be a URI", "a URI"},
	"uuid":               {"be " + uuidExample, uuidExample},
	"uuid_rfc4122":       {"be " + uuidExample, uuidExample},
	"hostname":           {"be " + `a hostname (RFC 952, e.g. "api.example.com")`, `a hostname (RFC 952, e.g. "api.example.com")`},
	"hostname_rfc1123":   {"be " + `a hostname (RFC 1123, e.g. "api.example.com")`, `a hostname (RFC 1123, e.g. "api.example.com")`},
	"fqdn":               {"be a fully qualified domain name", "a fully qualified domain name"},
	"ip":                 {"be an IP address", "an IP address"},
	"ip_addr":            {"be an IP address", "an IP address"},
	"ipv4":               {"be " + ipv4Example, ipv4Example},
	"ip4_addr":           {"be " + ipv4Example, ipv4Example},
	"ipv6":               {"be " + ipv6Example, ipv6Example},
	"ip6_addr":           {"be " + ipv6Example, ipv6Example},
	"cidr":               {"be " + `a CIDR network (e.g. "10.0.0.0/8")`, `a CIDR network (e.g. "10.0.0.0/8")`},
	"mac":                {"be a MAC address", "a MAC address"},
	"timezone":           {"be " + `an IANA time zone name (e.g. "Europe/Paris")`, `an IANA time zone name (e.g. "Europe/Paris")`},
	"alphanum":           {"contain only ASCII letters and digits", "ASCII letters and digits only"},
	"alpha":              {"contain only ASCII letters", "ASCII letters only"},
	"alphanumunicode":    {"contain only letters and digits", "letters and digits only"},
	"alphaunicode":       {"contain only letters", "letters only"},
	"numeric":            {"be a numeric string", "a numeric string"},
	"number":             {"be a string of digits", "a string of digits"},
	"hexadecimal":        {"be a hexadecimal string", "a hexadecimal string"},
	"lowercase":          {"be all lowercase", "all lowercase"},
	"uppercase":          {"be all uppercase", "all uppercase"},
	"ascii":              {"contain only ASCII characters", "ASCII characters only"},
	"printascii":         {"contain only printable ASCII characters", "printable ASCII characters only"},
	"boolean":            {"be " + `a boolean string ("true" or "false")`, `a boolean string ("true" or "false")`},
	"json":               {"be a string holding valid JSON", "a string holding valid JSON"},
	"base64":             {"be a base64 string", "a base64 string"},
	"e164":               {"be " + `a phone number in E.164 format (e.g. "+14155552671")`, `a phone number in E.164 format (e.g. "+14155552671")`},
	"iso3166_1_alpha2":   {"be " + `an ISO 3166-1 alpha-2 country code (e.g. "FR")`, `an ISO 3166-1 alpha-2 country code (e.g. "FR")`},
	"bcp47_language_tag": {"be " + `a BCP 47 language tag (e.g. "en-US")`, `a BCP 47 language tag (e.g. "en-US")`},
	"semver":             {"be " + `a semantic version (e.g. "1.2.3")`, `a semantic version (e.g. "1.2.3")`},
	"latitude":           {"be a latitude between -90 and 90", "a latitude between -90 and 90"},
	"longitude":          {"be a longitude between -180 and 180", "a longitude between -180 and 180"},
	"unique":             {"not contain duplicates", "unique items"},
	"isdefault":          {"be left out", "no value"},
}

const (
	urlExample     = `an absolute URL with a scheme (e.g. "https://example.com/path")`
	httpURLExample = `an http(s) URL (e.g. "https://example.com/path")`
	uuidExample    = `a UUID (e.g. "123e4567-e89b-12d3-a456-426614174000")`
	ipv4Example    = `an IPv4 address (e.g. "192.0.2.1")`
	ipv6Example    = `an IPv6 address (e.g. "2001:db8::1")`
)

// quotedPhrases are the string rules whose sentence quotes their
// parameter: the verb phrase and the noun phrase, each followed by it.
var quotedPhrases = map[string][2]string{
	"startswith":    {"must start with ", "a string starting with "},
	"endswith":      {"must end with ", "a string ending with "},
	"startsnotwith": {"must not start with ", "a string not starting with "},
	"endsnotwith":   {"must not end with ", "a string not ending with "},
	"contains":      {"must contain ", "a string containing "},
	"containsany":   {"must contain at least one of the characters ", "a string containing any of "},
	"excludes":      {"must not contain ", "a string without "},
	"excludesall":   {"must not contain any of the characters ", "a string without any of "},
}

// phrase says, for a failed rule, what the parameter must be ("must be
// between 1 and 14") and what was expected as a noun phrase ("between 1 and
// 14"). custom holds the descriptions given with WithRule.
func phrase(tag, param string, c class, bd bounds, zeroPresent bool, custom map[string]customRule) (must, expected string) {
	if r, ok := custom[tag]; ok {
		return "must be " + r.expected, r.expected
	}
	if p, ok := fixedPhrases[tag]; ok {
		return "must " + p[0], p[1]
	}
	if p, ok := quotedPhrases[tag]; ok {
		q := strconv.Quote(param)
		return p[0] + q, p[1] + q
	}
	switch tag {
	case "required":
		return requiredPhrase(c, zeroPresent)
	case "min", "gte", "max", "lte", "gt", "lt", "len":
		return sizePhrase(tag, param, c, bd)
	}
	return valuePhrase(tag, param, c)
}

// valuePhrase words the rules that compare or match a value, and any other
// rule by its tag.
func valuePhrase(tag, param string, c class) (must, expected string) {
	is := func(e string) (string, string) { return "must be " + e, e }
	q := param
	if c == cString {
		q = strconv.Quote(param)
	}
	switch tag {
	case "eq", "eq_ignore_case":
		return is(q)
	case "ne", "ne_ignore_case":
		return "must not be " + q, "anything but " + q
	case "oneof", "oneofci":
		return is("one of " + oneofList(param, c == cString))
	case "uuid3", "uuid4", "uuid5", "uuid3_rfc4122", "uuid4_rfc4122", "uuid5_rfc4122":
		v := strings.TrimSuffix(strings.TrimPrefix(tag, "uuid"), "_rfc4122")
		return is("a version " + v + " UUID")
	case "datetime":
		if e, ok := datePhrases[param]; ok {
			return is(e)
		}
		return is("a date/time in the Go layout " + strconv.Quote(param))
	}
	r := tag
	if param != "" {
		r += "=" + param
	}
	if strings.Contains(tag, "|") {
		return "must satisfy one of the rules " + strconv.Quote(r), "a value satisfying " + strconv.Quote(r)
	}
	return "must satisfy the rule " + strconv.Quote(r), "a value satisfying " + strconv.Quote(r)
}

// datePhrases word the datetime layouts that have a name.
var datePhrases = map[string]string{
	time.RFC3339:  `an RFC 3339 date-time (e.g. "2026-01-02T15:04:05Z")`,
	time.DateOnly: `a date in the form YYYY-MM-DD (e.g. "2026-01-02")`,
}

// requiredPhrase words a failed "required": left out, or sent empty.
func requiredPhrase(c class, zeroPresent bool) (must, expected string) {
	switch {
	case !zeroPresent:
		return "is required", "a value"
	case c == cNumber:
		return "must not be 0", "a non-zero number"
	case c == cBool:
		return "must be true", "true"
	}
	return "must not be empty", "a non-empty value"
}

// sizePhrase words the comparison rules: a length for strings, lists and
// maps, a value for numbers, a moment for times ("in the future").
func sizePhrase(tag, param string, c class, bd bounds) (must, expected string) {
	if c == cTime && param == "" {
		return timePhrase(tag)
	}
	m := measureOf(c)
	rel, ok := sizeRelations[tag]
	switch {
	case !ok:
		return m.strictly(tag, param)
	case tag != "len" && bd.lo != "" && bd.hi != "" && c != cTime:
		return m.say("between "+bd.lo+" and", bd.hi+m.units)
	}
	return m.say(rel, m.count(param))
}

// sizeRelations word the size rules but gt and lt.
var sizeRelations = map[string]string{
	"min": "at least", "gte": "at least", "max": "at most", "lte": "at most", "len": "exactly",
}

// measure words the sizes of one class: its unit, and a relation to a
// size put in a sentence.
type measure struct {
	c           class
	unit, units string // " character", " characters"; "" for a value
}

func measureOf(c class) measure {
	switch c {
	case cString:
		return measure{c, " character", " characters"}
	case cList:
		return measure{c, " item", " items"}
	case cMap:
		return measure{c, " entry", " entries"}
	}
	return measure{c: c}
}

// count is the size p with its unit ("1 item", "3 items").
func (m measure) count(p string) string {
	if p == "1" {
		return p + m.unit
	}
	return p + m.units
}

// say puts a relation ("at least", "between 1 and") and its operand in a
// sentence fit for the class.
func (m measure) say(rel, operand string) (must, expected string) {
	e := rel + " " + operand
	switch m.c {
	case cString:
		return "must be " + e + " long", e
	case cList, cMap:
		return "must have " + e, e
	}
	return "must be " + e, e
}

// strictly words gt and lt: greater or less than a value, longer or
// shorter than a length, more or fewer items or entries.
func (m measure) strictly(tag, param string) (must, expected string) {
	switch m.c {
	case cNumber, cOther, cTime, cBool:
		if tag == "gt" {
			return "must be greater than " + param, "greater than " + param
		}
		return "must be less than " + param, "less than " + param
	}
	rel := "more than "
	if tag == "lt" {
		rel = "fewer than "
	}
	if m.c == cString {
		verb := "must be longer than "
		if tag == "lt" {
			verb = "must be shorter than "
		}
		return verb + m.count(param), rel + m.count(param)
	}
	return "must have " + rel + m.count(param), rel + m.count(param)
}

// timePhrase words a comparison with now, which gt, gte, lt and lte make
// without a parameter on a time.
func timePhrase(tag string) (must, expected string) {
	switch tag {
	case "gt":
		return "must be in the future", "in the future"
	case "gte":
		return "must be now or later", "now or later"
	case "lt":
		return "must be in the past", "in the past"
	}
	return "must be now or earlier", "now or earlier"
}

// oneofValues splits a oneof parameter as the validator does: by spaces,
// with 'single quotes' around values that contain spaces.
func oneofValues(param string) []string {
	var out []string
	for len(param) > 0 {
		param = strings.TrimLeft(param, " ")
		if param == "" {
			break
		}
		if param[0] == '\'' {
			if end := strings.IndexByte(param[1:], '\''); end >= 0 {
				out = append(out, param[1:1+end])
				param = param[2+end:]
				continue
			}
		}
		v, rest, _ := strings.Cut(param, " ")
		out = append(out, v)
		param = rest
	}
	return out
}

func oneofList(param string, quote bool) string {
	vals := oneofValues(param)
	if quote {
		return quoteList(vals)
	}
	return strings.Join(vals, ", ")
}
