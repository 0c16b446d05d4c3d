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
	switch k {
	case reflect.String:
		return cString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return cNumber
	case reflect.Slice, reflect.Array:
		return cList
	case reflect.Map:
		return cMap
	case reflect.Bool:
		return cBool
	case reflect.Struct:
		if t == timeType {
			return cTime
		}
	}
	return cOther
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

// phrase says, for a failed rule, what the parameter must be ("must be
// between 1 and 14") and what was expected as a noun phrase ("between 1 and
// 14"). custom holds the descriptions given with WithRule.
func phrase(tag, param string, c class, bd bounds, zeroPresent bool, custom map[string]string) (must, expected string) {
	unit, units := "", ""
	switch c {
	case cString:
		unit, units = " character", " characters"
	case cList:
		unit, units = " item", " items"
	case cMap:
		unit, units = " entry", " entries"
	}
	count := func(p string) string {
		if p == "1" {
			return p + unit
		}
		return p + units
	}
	size := func(rel, p string) (string, string) {
		switch c {
		case cString:
			return "must be " + rel + " " + count(p) + " long", rel + " " + count(p)
		case cList, cMap:
			return "must have " + rel + " " + count(p), rel + " " + count(p)
		}
		return "must be " + rel + " " + p, rel + " " + p
	}
	between := func() (string, string) {
		e := "between " + bd.lo + " and " + bd.hi
		switch c {
		case cString:
			return "must be " + e + units + " long", e + units
		case cList, cMap:
			return "must have " + e + units, e + units
		}
		return "must be " + e, e
	}
	is := func(e string) (string, string) { return "must be " + e, e }

	if e, ok := custom[tag]; ok {
		return is(e)
	}
	switch tag {
	case "required":
		if !zeroPresent {
			return "is required", "a value"
		}
		switch c {
		case cNumber:
			return "must not be 0", "a non-zero number"
		case cBool:
			return "must be true", "true"
		}
		return "must not be empty", "a non-empty value"
	case "min", "gte", "max", "lte":
		if bd.lo != "" && bd.hi != "" && c != cTime {
			return between()
		}
		if c == cTime && param == "" {
			if tag == "gte" {
				return is("now or later")
			}
			return is("now or earlier")
		}
		if tag == "min" || tag == "gte" {
			return size("at least", param)
		}
		return size("at most", param)
	case "gt", "lt":
		if c == cTime && param == "" {
			if tag == "gt" {
				return is("in the future")
			}
			return is("in the past")
		}
		switch {
		case tag == "gt" && c == cString:
			return "must be longer than " + count(param), "more than " + count(param)
		case tag == "lt" && c == cString:
			return "must be shorter than " + count(param), "fewer than " + count(param)
		case tag == "gt" && (c == cList || c == cMap):
			return "must have more than " + count(param), "more than " + count(param)
		case tag == "lt" && (c == cList || c == cMap):
			return "must have fewer than " + count(param), "fewer than " + count(param)
		case tag == "gt":
			return is("greater than " + param)
		}
		return is("less than " + param)
	case "len":
		return size("exactly", param)
	case "eq", "eq_ignore_case":
		if c == cString {
			return is(strconv.Quote(param))
		}
		return is(param)
	case "ne", "ne_ignore_case":
		if c == cString {
			return "must not be " + strconv.Quote(param), "anything but " + strconv.Quote(param)
		}
		return "must not be " + param, "anything but " + param
	case "oneof", "oneofci":
		return is("one of " + oneofList(param, c == cString))
	case "email":
		return is("an email address")
	case "url":
		return is(`an absolute URL with a scheme (e.g. "https://example.com/path")`)
	case "http_url", "https_url":
		return is(`an http(s) URL (e.g. "https://example.com/path")`)
	case "uri":
		return is("a URI")
	case "uuid", "uuid_rfc4122":
		return is(`a UUID (e.g. "123e4567-e89b-12d3-a456-426614174000")`)
	case "uuid3", "uuid4", "uuid5", "uuid3_rfc4122", "uuid4_rfc4122", "uuid5_rfc4122":
		v := strings.TrimSuffix(strings.TrimPrefix(tag, "uuid"), "_rfc4122")
		return is("a version " + v + " UUID")
	case "hostname":
		return is(`a hostname (RFC 952, e.g. "api.example.com")`)
	case "hostname_rfc1123":
		return is(`a hostname (RFC 1123, e.g. "api.example.com")`)
	case "fqdn":
		return is("a fully qualified domain name")
	case "ip", "ip_addr":
		return is("an IP address")
	case "ipv4", "ip4_addr":
		return is(`an IPv4 address (e.g. "192.0.2.1")`)
	case "ipv6", "ip6_addr":
		return is(`an IPv6 address (e.g. "2001:db8::1")`)
	case "cidr":
		return is("a CIDR network (e.g. \"10.0.0.0/8\")")
	case "mac":
		return is("a MAC address")
	case "datetime":
		switch param {
		case time.RFC3339:
			return is(`an RFC 3339 date-time (e.g. "2026-01-02T15:04:05Z")`)
		case time.DateOnly:
			return is(`a date in the form YYYY-MM-DD (e.g. "2026-01-02")`)
		}
		return is("a date/time in the Go layout " + strconv.Quote(param))
	case "timezone":
		return is(`an IANA time zone name (e.g. "Europe/Paris")`)
	case "alphanum":
		return "must contain only ASCII letters and digits", "ASCII letters and digits only"
	case "alpha":
		return "must contain only ASCII letters", "ASCII letters only"
	case "alphanumunicode":
		return "must contain only letters and digits", "letters and digits only"
	case "alphaunicode":
		return "must contain only letters", "letters only"
	case "numeric":
		return is("a numeric string")
	case "number":
		return is("a string of digits")
	case "hexadecimal":
		return is("a hexadecimal string")
	case "lowercase":
		return is("all lowercase")
	case "uppercase":
		return is("all uppercase")
	case "ascii":
		return "must contain only ASCII characters", "ASCII characters only"
	case "printascii":
		return "must contain only printable ASCII characters", "printable ASCII characters only"
	case "boolean":
		return is(`a boolean string ("true" or "false")`)
	case "json":
		return is("a string holding valid JSON")
	case "base64":
		return is("a base64 string")
	case "e164":
		return is(`a phone number in E.164 format (e.g. "+14155552671")`)
	case "iso3166_1_alpha2":
		return is(`an ISO 3166-1 alpha-2 country code (e.g. "FR")`)
	case "bcp47_language_tag":
		return is(`a BCP 47 language tag (e.g. "en-US")`)
	case "semver":
		return is(`a semantic version (e.g. "1.2.3")`)
	case "latitude":
		return is("a latitude between -90 and 90")
	case "longitude":
		return is("a longitude between -180 and 180")
	case "startswith":
		return "must start with " + strconv.Quote(param), "a string starting with " + strconv.Quote(param)
	case "endswith":
		return "must end with " + strconv.Quote(param), "a string ending with " + strconv.Quote(param)
	case "startsnotwith":
		return "must not start with " + strconv.Quote(param), "a string not starting with " + strconv.Quote(param)
	case "endsnotwith":
		return "must not end with " + strconv.Quote(param), "a string not ending with " + strconv.Quote(param)
	case "contains":
		return "must contain " + strconv.Quote(param), "a string containing " + strconv.Quote(param)
	case "containsany":
		return "must contain at least one of the characters " + strconv.Quote(param), "a string containing any of " + strconv.Quote(param)
	case "excludes":
		return "must not contain " + strconv.Quote(param), "a string without " + strconv.Quote(param)
	case "excludesall":
		return "must not contain any of the characters " + strconv.Quote(param), "a string without any of " + strconv.Quote(param)
	case "unique":
		return "must not contain duplicates", "unique items"
	case "isdefault":
		return "must be left out", "no value"
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
