package obs

import (
	"encoding/json"
	"strings"
	"testing"
)

// encodedSizes is how the names-only arguments were rendered before
// appendArgumentSizes: argumentSizes through the encoder.
func encodedSizes(r *Redactor, args any) ([]byte, error) {
	if raw, ok := args.(json.RawMessage); ok {
		var decoded any
		if len(raw) > maxTextBytes*64 || json.Unmarshal(raw, &decoded) != nil {
			return marshalPlain(sizeOf(args))
		}
		args = decoded
	}
	return marshalPlain(argumentSizes(r, args))
}

// TestArgumentNamesAsEncoded: the names-only arguments written straight
// into a buffer are byte for byte what the encoder wrote, for plain keys
// and for the keys that take the encoder's path.
func TestArgumentNamesAsEncoded(t *testing.T) {
	r := NewRedactor("pin")
	many := map[string]any{}
	for i := range 40 {
		many[strings.Repeat("k", i+1)] = i
	}
	for name, args := range map[string]any{
		"typed tool": map[string]any{"city": "Paris", "days": float64(3), "units": "metric", "lat": 48.85,
			"lon": 2.35, "hourly": true},
		"every type": map[string]any{"s": "ab", "n": json.Number("1"), "i": 7, "b": false, "nil": nil,
			"a": []any{1, 2}, "o": map[string]any{"x": 1}, "raw": json.RawMessage(`{}`), "u": uint8(1)},
		"secrets":      map[string]any{"api_key": "x", "password": "y", "pin": "1234", "city": "Rome"},
		"many keys":    many,
		"quote key":    map[string]any{`a"b`: "x", "c": "y"},
		"html key":     map[string]any{"<a>&": "x"},
		"unicode key":  map[string]any{"città": "Roma", "a\u2028b": 1},
		"control key":  map[string]any{"a\nb": 1, "tab\t": 2},
		"invalid utf8": map[string]any{"a\xffb": 1},
		"long key":     map[string]any{strings.Repeat("x", maxNameBytes+10): 1, strings.Repeat("x", maxNameBytes+20): 2},
		"empty":        map[string]any{},
		"raw object":   json.RawMessage(`{"path":"/etc/hosts","token":"t","n":[1,2,3]}`),
		"raw array":    json.RawMessage(`[1,2]`),
		"raw invalid":  json.RawMessage(`{"a":`),
		"not a map":    []any{"a"},
		"string":       "text",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := argumentNames(r, args)
			want, werr := encodedSizes(r, args)
			if (err == nil) != (werr == nil) {
				t.Fatalf("error %v, the encoder's %v", err, werr)
			}
			if string(got) != string(want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestArgumentNamesAllocateOnce: a typed tool's arguments by name cost
// one allocation, the rendered line.
func TestArgumentNamesAllocateOnce(t *testing.T) {
	r := NewRedactor()
	args := map[string]any{"city": "Paris", "days": float64(3), "units": "metric", "lat": 48.85, "lon": 2.35, "hourly": true}
	if n := testing.AllocsPerRun(100, func() { _, _ = argumentNames(r, args) }); n > 1 {
		t.Fatalf("%.0f allocations, want 1", n)
	}
}

// BenchmarkArgumentNames: the names-only arguments of a 6-field typed
// tool, as the log line renders them.
func BenchmarkArgumentNames(b *testing.B) {
	r := NewRedactor()
	args := map[string]any{"city": "Paris", "days": float64(3), "units": "metric", "lat": 48.85, "lon": 2.35, "hourly": true}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = argumentNames(r, args)
		}
	})
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = encodedSizes(r, args)
		}
	})
}
