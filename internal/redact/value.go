package redact

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/internal/structtag"
)

const (
	maxDepth = 16
	// MaxTextBytes caps any one string a Redactor reads: scrubbing runs on
	// what is kept, never on multi-megabyte text.
	MaxTextBytes = 16 << 10
	// MaxNameBytes caps a name (a key, a tool, an id) on a log line or a span.
	MaxNameBytes = 256
	// elided stands for what a walk left out past its depth or budget.
	elided = "…"
)

// Name is s as a name may appear on a log line or a span (a key, a tool,
// an id): capped to MaxNameBytes and stripped of control characters.
func Name(s string) string { return SafeText(CapString(s, MaxNameBytes)) }

// Value returns a redacted copy of v, ready for JSON: maps and structs are
// walked, secret keys (and fields tagged mcpwrap:"secret") become Redacted,
// strings are capped and passed through String, slog.LogValuer values are
// resolved first. The walk is bounded: past a budget of a few times
// MaxTextBytes, further values are elided.
func (r *Redactor) Value(v any) any {
	w := walker{r: r.orDefault(), limit: MaxTextBytes, budget: 4 * MaxTextBytes}
	return w.value(reflect.ValueOf(v), 0)
}

// ValueWithin is Value with the walk's bounds given: each string is cut to
// limit bytes before it is scrubbed, and past budget bytes in all further
// values are elided.
func (r *Redactor) ValueWithin(v any, limit, budget int) any {
	w := walker{r: r.orDefault(), limit: limit, budget: budget}
	return w.value(reflect.ValueOf(v), 0)
}

// SlogValueWithin is ValueWithin for a resolved slog.Value: a group's
// members under secret names become Redacted, and so on inside.
func (r *Redactor) SlogValueWithin(v slog.Value, limit, budget int) any {
	w := walker{r: r.orDefault(), limit: limit, budget: budget}
	return w.slogValue(v, 0)
}

// walker is one bounded walk of a value: strings are cut to limit before
// they are scrubbed, and once budget bytes have been seen the rest is
// elided, so the cost does not grow with the input past the caps.
type walker struct {
	r      *Redactor
	found  *[]string // secret values seen, so free text can be scrubbed; may be nil
	limit  int
	budget int
}

func (w *walker) spend(n int) bool {
	w.budget -= n
	return w.budget >= 0
}

func (w *walker) str(s string) string {
	w.spend(min(len(s), w.limit))
	return SafeText(w.r.String(CapString(s, w.limit)))
}

func (w *walker) value(v reflect.Value, depth int) any {
	if !v.IsValid() {
		return nil
	}
	if depth > maxDepth || !w.spend(1) {
		return elided
	}
	if v.CanInterface() {
		if out, ok := w.special(v.Interface(), depth); ok {
			return out
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return w.value(v.Elem(), depth+1) // nil's Elem is not valid: nil
	case reflect.String:
		return w.str(v.String())
	case reflect.Map:
		return w.mapValue(v, depth)
	case reflect.Slice, reflect.Array:
		return w.sliceValue(v, depth)
	case reflect.Struct:
		return w.structValue(v, depth)
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return v.Interface()
	}
	return w.r.String(v.Type().String())
}

// special handles the types whose meaning is not their Go shape.
func (w *walker) special(x any, depth int) (any, bool) {
	switch x := x.(type) {
	case slog.LogValuer:
		return w.slogValue(x.LogValue().Resolve(), depth), true
	case json.RawMessage:
		return w.rawJSON(x, depth), true
	case json.Number:
		return x, true
	case http.Header:
		return w.headers(x), true
	case error:
		return w.str(ErrorText(x)), true
	}
	return nil, false
}

// rawJSON is the redacted copy of JSON: walked when decoded, scrubbed as
// text when it is too long or not JSON.
func (w *walker) rawJSON(x json.RawMessage, depth int) any {
	if len(x) > w.limit*4 {
		return SafeText(w.r.String(CapBytes(x, w.limit)))
	}
	var decoded any
	if json.Unmarshal(x, &decoded) != nil {
		return w.str(string(x))
	}
	return w.value(reflect.ValueOf(decoded), depth+1)
}

func (w *walker) sliceValue(v reflect.Value, depth int) any {
	if isBytes(v) {
		return "<" + v.Type().String() + ">"
	}
	out := make([]any, 0, min(v.Len(), 64))
	for i := range v.Len() {
		if w.budget < 0 {
			out = append(out, elided)
			break
		}
		out = append(out, w.value(v.Index(i), depth+1))
	}
	return out
}

// isBytes reports whether v is a []byte (or a slice of another byte type):
// bytes, not a list of values.
func isBytes(v reflect.Value) bool {
	return v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8
}

func (w *walker) mapValue(v reflect.Value, depth int) any {
	if v.Type().Key().Kind() != reflect.String {
		return w.r.String(v.Type().String())
	}
	out := make(map[string]any, min(v.Len(), 64))
	it := v.MapRange()
	for it.Next() {
		if w.budget < 0 {
			out[elided] = elided
			break
		}
		k := it.Key().String()
		w.spend(len(k))
		k = Name(k)
		if w.r.IsSecretName(k) {
			out[k] = Redacted
			collect(it.Value(), w.found, 0)
			continue
		}
		out[k] = w.value(it.Value(), depth+1)
	}
	return out
}

func (w *walker) structValue(v reflect.Value, depth int) any {
	out := make(map[string]any, v.NumField())
	t := v.Type()
	for i := range t.NumField() {
		name, secret, ok := jsonField(t.Field(i))
		switch {
		case !ok:
		case secret || w.r.IsSecretName(name):
			out[name] = Redacted
			collect(v.Field(i), w.found, 0)
		default:
			out[name] = w.value(v.Field(i), depth+1)
		}
	}
	return out
}

// jsonField returns the JSON name of f and whether it is tagged
// mcpwrap:"secret"; ok is false for a field encoding/json leaves out.
func jsonField(f reflect.StructField) (name string, secret, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	j := structtag.JSONOf(f)
	return j.Name, structtag.Secret(f), !j.Skip
}

func (w *walker) slogValue(v slog.Value, depth int) any {
	switch v.Kind() {
	case slog.KindString:
		return w.str(v.String())
	case slog.KindGroup:
		out := make(map[string]any)
		for _, a := range v.Group() {
			if w.r.IsSecretName(a.Key) {
				out[a.Key] = Redacted
				continue
			}
			out[a.Key] = w.slogValue(a.Value.Resolve(), depth+1)
		}
		return out
	case slog.KindAny:
		return w.value(reflect.ValueOf(v.Any()), depth+1)
	}
	return v.Any()
}

// headers redacts secret headers (Authorization, Cookie, …).
func (w *walker) headers(h http.Header) map[string]any {
	out := make(map[string]any, len(h))
	for k, vs := range h {
		if w.r.IsSecretName(k) {
			out[k] = Redacted
			collectHeader(vs, w.found)
			continue
		}
		out[k] = w.str(strings.Join(vs, ", "))
	}
	return out
}

// clean reports whether v, a value decoded from JSON, holds nothing Value
// would change: no secret names, no secret-shaped strings, no string longer
// than limit, and no more than budget bytes in all. It allocates nothing;
// any other type answers false, so the caller takes the full path.
func (r *Redactor) Clean(v any, depth, limit int, budget *int) bool {
	if depth > maxDepth || *budget < 0 {
		return false
	}
	*budget--
	switch x := v.(type) {
	case nil, bool, float64, json.Number:
		return true
	case string:
		*budget -= len(x)
		return len(x) <= limit && SafeText(x) == x && r.String(x) == x
	case map[string]any:
		return r.cleanObject(x, depth, limit, budget)
	case []any:
		for _, e := range x {
			if !r.Clean(e, depth+1, limit, budget) {
				return false
			}
		}
		return true
	}
	return false
}

// cleanObject is Clean for an object: no secret names, clean members.
func (r *Redactor) cleanObject(m map[string]any, depth, limit int, budget *int) bool {
	for k, e := range m {
		*budget -= len(k)
		if r.IsSecretName(k) || !r.Clean(e, depth+1, limit, budget) {
			return false
		}
	}
	return true
}

// SecretHeaders only collects the values of secret headers (Authorization,
// Cookie, …), so that text repeating them can be scrubbed; it builds no
// redacted copy, which per call would cost a regexp pass per header.
func (r *Redactor) SecretHeaders(h http.Header, found *[]string) {
	for k, vs := range h {
		if r.IsSecretName(k) {
			collectHeader(vs, found)
		}
	}
}

// collectHeader records a secret header's values and, for "Bearer x",
// the token alone.
func collectHeader(vs []string, found *[]string) {
	if found == nil {
		return
	}
	for _, v := range vs {
		*found = append(*found, v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			*found = append(*found, tok)
		}
	}
}

// collect records the string leaves of a secret value, so free text that
// repeats them can be scrubbed.
func collect(v reflect.Value, found *[]string, depth int) {
	if found == nil || !v.IsValid() || depth > maxDepth || len(*found) > 256 {
		return
	}
	if s, ok := leafText(v); ok {
		*found = append(*found, s)
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		collect(v.Elem(), found, depth+1) // nil's Elem is not valid
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			collect(it.Value(), found, depth+1)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			collect(v.Index(i), found, depth+1)
		}
	}
}

// leafText is the text a secret leaf is echoed as: a string, bytes, or a
// number in its shortest decimal form (a PIN decoded from JSON); ok is
// false for anything else.
func leafText(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	}
	if isBytes(v) {
		return string(v.Bytes()), true
	}
	return "", false
}

// SecretsIn collects the secret values of args (by name or struct tag)
// without building a redacted copy.
func (r *Redactor) SecretsIn(args any, found *[]string) {
	w := walker{r: r.orDefault(), found: found, limit: MaxTextBytes, budget: 4 * MaxTextBytes}
	w.secrets(reflect.ValueOf(args), 0)
}

func (w *walker) secrets(v reflect.Value, depth int) {
	if !v.IsValid() || depth > maxDepth || !w.spend(1) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		w.secrets(v.Elem(), depth+1) // nil's Elem is not valid
	case reflect.Map:
		w.mapSecrets(v, depth)
	case reflect.Slice, reflect.Array:
		if isBytes(v) {
			return
		}
		for i := range min(v.Len(), 1024) {
			w.secrets(v.Index(i), depth+1)
		}
	case reflect.Struct:
		w.structSecrets(v, depth)
	}
}

// mapSecrets is secrets for a map: the values under secret keys are
// collected, the others walked.
func (w *walker) mapSecrets(v reflect.Value, depth int) {
	if v.Type().Key().Kind() != reflect.String {
		return
	}
	it := v.MapRange()
	for it.Next() {
		if w.r.IsSecretName(it.Key().String()) {
			collect(it.Value(), w.found, 0)
		} else {
			w.secrets(it.Value(), depth+1)
		}
	}
}

// structSecrets is secrets for a struct: the fields with secret names or
// tagged mcpwrap:"secret" are collected, the others walked.
func (w *walker) structSecrets(v reflect.Value, depth int) {
	t := v.Type()
	for i := range t.NumField() {
		name, secret, ok := jsonField(t.Field(i))
		switch {
		case !ok:
		case secret || w.r.IsSecretName(name):
			collect(v.Field(i), w.found, 0)
		default:
			w.secrets(v.Field(i), depth+1)
		}
	}
}

// SecretNames returns the JSON names of the fields of the struct type of v
// (and of nested structs) tagged mcpwrap:"secret", for WithSecretNames: a
// typed argument struct declares its secrets once (the typed tools of both
// adapters pass them to the tool's chain).
//
//	type loginArgs struct {
//		User     string `json:"user"`
//		Password string `json:"pin" mcpwrap:"secret"`
//	}
//	wrap.WithSecrets(redact.SecretNames(loginArgs{})...)
func SecretNames(v any) []string {
	if v == nil {
		return nil
	}
	var out []string
	secretNames(reflect.TypeOf(v), 0, &out)
	return out
}

// secretNames appends to out the names of the fields tagged secret of the
// struct type t holds, and of the structs its other fields hold.
func secretNames(t reflect.Type, depth int, out *[]string) {
	t = structtag.Innermost(t)
	if t.Kind() != reflect.Struct || depth > maxDepth {
		return
	}
	for i := range t.NumField() {
		switch name, secret, ok := jsonField(t.Field(i)); {
		case !ok:
		case secret:
			*out = append(*out, name)
		default:
			secretNames(t.Field(i).Type, depth+1, out)
		}
	}
}
