package obs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// encodedSizes is how the names-only arguments were rendered before
// appendArgumentSizes: argumentSizes through the encoder.
func encodedSizes(r *redact.Redactor, args any) ([]byte, error) {
	if raw, ok := args.(json.RawMessage); ok {
		var decoded any
		if len(raw) > redact.MaxTextBytes*64 || json.Unmarshal(raw, &decoded) != nil {
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
	r := redact.NewRedactor("pin")
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
		"long key":     map[string]any{strings.Repeat("x", redact.MaxNameBytes+10): 1, strings.Repeat("x", redact.MaxNameBytes+20): 2},
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
	r := redact.NewRedactor()
	args := map[string]any{"city": "Paris", "days": float64(3), "units": "metric", "lat": 48.85, "lon": 2.35, "hourly": true}
	if n := testing.AllocsPerRun(100, func() { _, _ = argumentNames(r, args) }); n > 1 {
		t.Fatalf("%.0f allocations, want 1", n)
	}
}

// BenchmarkArgumentNames: the names-only arguments of a 6-field typed
// tool, as the log line renders them.
func BenchmarkArgumentNames(b *testing.B) {
	r := redact.NewRedactor()
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

// TestArgumentNamesThroughKeyOrder: a tool's remembered key order writes
// the same bytes as the encoder, on the call that remembers it, on the
// calls after, and for a call of the same tool with other keys.
func TestArgumentNamesThroughKeyOrder(t *testing.T) {
	r := redact.NewRedactor("pin")
	many := map[string]any{}
	for i := range 70 {
		many[strings.Repeat("k", i+1)] = i
	}
	first := map[string]any{"city": "Lyon", "days": float64(2), "units": "metric", "lat": 4.0, "lon": 5.0, "hourly": true}
	calls := []map[string]any{
		{"city": "Paris", "days": float64(3), "units": "metric", "lat": 48.85, "lon": 2.35, "hourly": true},
		{"city": "Rome", "days": float64(14), "units": "imperial", "lat": 1.0, "lon": 2.0, "hourly": false},
		{"city": "Oslo", "days": float64(1)},
		{"city": "Oslo", "days": float64(1), "units": "metric", "lat": 1.0, "lon": 2.0, "pin": "1234"},
		{"api_key": "x", "password": "y", "pin": "1234", "city": "Rome"},
		{"a\nb": 1, "c": "y"},
		many,
		{},
	}
	var k keyOrders
	for _, tool := range []string{"forecast", "other"} {
		for i, args := range calls {
			want, err := encodedSizes(r, args)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := k.appendSizes(r, tool, args)
			if !ok {
				if got, _ = argumentNames(r, args); string(got) != string(want) {
					t.Fatalf("%s call %d, general path: got %s, want %s", tool, i, got, want)
				}
				continue
			}
			if string(got) != string(want) {
				t.Fatalf("%s call %d: got  %s\nwant %s", tool, i, got, want)
			}
		}
		calls = append(calls[2:], calls[:2]...) // the other tool remembers other keys first
	}
	if _, ok := k.appendSizes(r, "forecast", first); !ok {
		t.Fatal("the remembered key order was not used for the same keys")
	}
}

// TestArgumentNamesSecretsPerObserver: WithSecrets' copy does not use the
// key order its parent remembered with other secret names.
func TestArgumentNamesSecretsPerObserver(t *testing.T) {
	o := New()
	args := map[string]any{"city": "Paris", "pin": "1234"}
	c := &Recording{o: o, tool: "t", args: args}
	got, _ := c.argumentNames()
	if strings.Contains(string(got), redact.Redacted) {
		t.Fatalf("pin redacted without being a secret name: %s", got)
	}
	c = &Recording{o: o.WithSecrets("pin"), tool: "t", args: args}
	got, _ = c.argumentNames()
	if !strings.Contains(string(got), `"pin":"`+redact.Redacted+`"`) {
		t.Fatalf("pin not redacted by WithSecrets' copy: %s", got)
	}
}
