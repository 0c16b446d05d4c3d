package observe

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces every secret value in logs and span attributes.
const Redacted = "[REDACTED]"

// DefaultSecretNames are the argument, field and header names whose values
// are always redacted. Names match case-insensitively, ignoring '-' and '_',
// and also as a suffix ("db_password", "X-Api-Key").
var DefaultSecretNames = []string{
	"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "accesskey", "privatekey",
	"authorization", "auth", "cookie", "setcookie", "credential", "credentials", "sessionid", "clientsecret",
	"proxyauthorization",
}

// SecretTag is the struct tag that marks a field of a typed argument struct
// as secret: `json:"pin" mcpwrap:"secret"`. SecretNames reads it.
const SecretTag = "mcpwrap"

// secretShapes are values that are secrets whatever their key: bearer
// tokens, JWTs, well-known API key formats, URL passwords, key=value pairs
// with a secret-sounding key.
var secretShapes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9\-._~+/]{8,}=*`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`),
	regexp.MustCompile(`\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}|\b(ghp|gho|ghu|ghs|ghr|github_pat|glpat|xox[abprs])[-_][A-Za-z0-9_-]{10,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}`),
	regexp.MustCompile(`(?i)\b([a-z_-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth))(["']?\s*[=:]\s*["']?)([^\s"'&,;]+)`),
}

// minShapeLen is the shortest match of the first three secretShapes
// ("token " plus 8, "ghp_" plus 10); the last one needs a '=' or ':'.
const minShapeLen = 14

var urlPassword = regexp.MustCompile(`(://[^/\s:@]+:)([^@\s/]+)@`)

// Redactor removes secrets from values before they reach a log line or a
// span. It is immutable after NewRedactor and safe for concurrent use.
type Redactor struct {
	names []string // normalised
}

// NewRedactor returns a Redactor for DefaultSecretNames plus names.
func NewRedactor(names ...string) *Redactor {
	r := &Redactor{}
	for _, n := range slices.Concat(DefaultSecretNames, names) {
		if n = normalize(n); n != "" && !slices.Contains(r.names, n) {
			r.names = append(r.names, n)
		}
	}
	return r
}

func normalize(s string) string {
	var buf [64]byte
	return string(appendNormalized(buf[:0], s))
}

// appendNormalized lower-cases s and drops '-', '_', '.' and spaces,
// without allocating when dst has room.
func appendNormalized(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// IsSecretName reports whether values under this key are secret.
func (r *Redactor) IsSecretName(key string) bool {
	var buf [64]byte
	k := appendNormalized(buf[:0], key)
	if len(k) == 0 {
		return false
	}
	for _, n := range r.names {
		if len(k) >= len(n) && string(k[len(k)-len(n):]) == n {
			return true
		}
	}
	return false
}

// String removes secret-shaped substrings from s: bearer tokens, JWTs, API
// keys, URL passwords and "password=…" pairs.
func (r *Redactor) String(s string) string {
	// Every shape needs 14 characters or a separator, so the short plain
	// values most arguments are skip the regular expressions entirely.
	sep := strings.ContainsAny(s, "=:")
	if len(s) < minShapeLen && !sep {
		return s
	}
	if sep && strings.Contains(s, "://") {
		s = urlPassword.ReplaceAllString(s, "${1}"+Redacted+"@")
	}
	for i, re := range secretShapes {
		if i == len(secretShapes)-1 {
			if sep {
				s = re.ReplaceAllString(s, "${1}${2}"+Redacted)
			}
			continue
		}
		if len(s) >= minShapeLen {
			s = re.ReplaceAllString(s, Redacted)
		}
	}
	return s
}

// Scrub returns s with every known secret value replaced, then String.
func (r *Redactor) scrub(s string, known []string) string {
	for _, k := range known {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	return r.String(s)
}

// Value returns a redacted copy of v, ready for JSON: maps and structs are
// walked, secret keys (and fields tagged mcpwrap:"secret") become Redacted,
// strings are passed through String, slog.LogValuer values are resolved
// first. Secret values found are appended to *found, so that they can be
// scrubbed from free text (error messages) too.
func (r *Redactor) Value(v any, found *[]string) any {
	return r.value(reflect.ValueOf(v), found, 0)
}

const maxDepth = 16

func (r *Redactor) value(v reflect.Value, found *[]string, depth int) any {
	if !v.IsValid() {
		return nil
	}
	if depth > maxDepth {
		return "…"
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case slog.LogValuer:
			return r.slogValue(x.LogValue().Resolve(), found, depth)
		case json.RawMessage:
			var decoded any
			if json.Unmarshal(x, &decoded) != nil {
				return r.String(string(x))
			}
			return r.value(reflect.ValueOf(decoded), found, depth+1)
		case json.Number:
			return x
		case http.Header:
			return r.headers(x, found)
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return r.value(v.Elem(), found, depth+1)
	case reflect.String:
		return r.String(v.String())
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return r.String(v.Type().String())
		}
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			k := it.Key().String()
			if r.IsSecretName(k) {
				out[k] = Redacted
				collect(it.Value(), found)
				continue
			}
			out[k] = r.value(it.Value(), found, depth+1)
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "<" + v.Type().String() + ">"
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = r.value(v.Index(i), found, depth+1)
		}
		return out
	case reflect.Struct:
		out := make(map[string]any, v.NumField())
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, skip := jsonName(f)
			if skip {
				continue
			}
			if isTaggedSecret(f) || r.IsSecretName(name) {
				out[name] = Redacted
				collect(v.Field(i), found)
				continue
			}
			out[name] = r.value(v.Field(i), found, depth+1)
		}
		return out
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return v.Interface()
	}
	return r.String(v.Type().String())
}

func (r *Redactor) slogValue(v slog.Value, found *[]string, depth int) any {
	switch v.Kind() {
	case slog.KindString:
		return r.String(v.String())
	case slog.KindGroup:
		out := make(map[string]any)
		for _, a := range v.Group() {
			if r.IsSecretName(a.Key) {
				out[a.Key] = Redacted
				continue
			}
			out[a.Key] = r.slogValue(a.Value.Resolve(), found, depth+1)
		}
		return out
	case slog.KindAny:
		return r.value(reflect.ValueOf(v.Any()), found, depth+1)
	}
	return v.Any()
}

// headers redacts secret headers (Authorization, Cookie, …).
func (r *Redactor) headers(h http.Header, found *[]string) map[string]any {
	out := make(map[string]any, len(h))
	for k, vs := range h {
		if r.IsSecretName(k) {
			out[k] = Redacted
			collectHeader(vs, found)
			continue
		}
		out[k] = r.String(strings.Join(vs, ", "))
	}
	return out
}

// clean reports whether v, a value decoded from JSON, holds nothing Value
// would change: no secret names and no secret-shaped strings. It allocates
// nothing; any other type answers false, so the caller takes the full path.
func (r *Redactor) clean(v any, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, float64, json.Number:
		return true
	case string:
		return r.String(x) == x
	case map[string]any:
		for k, e := range x {
			if r.IsSecretName(k) || !r.clean(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !r.clean(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// secretHeaders only collects the values of secret headers (Authorization,
// Cookie, …), so that text repeating them can be scrubbed; it builds no
// redacted copy, which per call would cost a regexp pass per header.
func (r *Redactor) secretHeaders(h http.Header, found *[]string) {
	for k, vs := range h {
		if r.IsSecretName(k) {
			collectHeader(vs, found)
		}
	}
}

// collectHeader records a secret header's values and, for "Bearer x",
// the token alone.
func collectHeader(vs []string, found *[]string) {
	for _, v := range vs {
		*found = append(*found, v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			*found = append(*found, tok)
		}
	}
}

// collect records the string leaves of a secret value, so free text that
// repeats them can be scrubbed.
func collect(v reflect.Value, found *[]string) {
	if found == nil || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), found)
		}
	case reflect.String:
		*found = append(*found, v.String())
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			collect(it.Value(), found)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			*found = append(*found, string(v.Bytes()))
			return
		}
		for i := range v.Len() {
			collect(v.Index(i), found)
		}
	}
}

func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, false
}

func isTaggedSecret(f reflect.StructField) bool {
	for opt := range strings.SplitSeq(f.Tag.Get(SecretTag), ",") {
		if opt == "secret" {
			return true
		}
	}
	return false
}

// SecretNames returns the JSON names of the fields of the struct type of v
// (and of nested structs) tagged mcpwrap:"secret", for WithSecretNames: a
// typed argument struct declares its secrets once.
//
//	type loginArgs struct {
//		User     string `json:"user"`
//		Password string `json:"pin" mcpwrap:"secret"`
//	}
//	observe.New(observe.WithSecretNames(observe.SecretNames(loginArgs{})...))
func SecretNames(v any) []string {
	var out []string
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > maxDepth {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, skip := jsonName(f)
			if skip || !f.IsExported() {
				continue
			}
			if isTaggedSecret(f) {
				out = append(out, name)
				continue
			}
			walk(f.Type, depth+1)
		}
	}
	if v != nil {
		walk(reflect.TypeOf(v), 0)
	}
	return out
}
