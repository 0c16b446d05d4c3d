package callcache_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/callcache"
)

func key(t *testing.T, args any, raw string) (callcache.Key, bool) {
	t.Helper()
	return callcache.KeyOf("alice", "t", "search", args, json.RawMessage(raw))
}

func TestKeyIsCanonical(t *testing.T) {
	same := []struct {
		name string
		a, b string
	}{
		{"key order", `{"a":1,"b":"x"}`, `{"b":"x","a":1}`},
		{"white space", `{"a": [1, 2]}`, `{"a":[1,2]}`},
		{"1 and 1.0", `{"n":1}`, `{"n":1.0}`},
		{"exponent", `{"n":100}`, `{"n":1e2}`},
		{"fraction exponent", `{"n":0.5}`, `{"n":5E-1}`},
		{"zeros", `{"n":0}`, `{"n":-0.0}`},
		{"nested order", `{"o":{"x":1,"y":[{"b":2,"a":1}]}}`, `{"o":{"y":[{"a":1,"b":2}],"x":1}}`},
	}
	for _, c := range same {
		t.Run(c.name, func(t *testing.T) {
			ka, oka := key(t, nil, c.a)
			kb, okb := key(t, nil, c.b)
			if !oka || !okb || ka != kb {
				t.Fatalf("%s and %s: keys differ (%v %v)", c.a, c.b, oka, okb)
			}
		})
	}
	differ := []struct {
		name string
		a, b string
	}{
		{"values", `{"n":1}`, `{"n":2}`},
		{"big integers", `{"id":12345678901234567891}`, `{"id":12345678901234567890}`},
		{"string and number", `{"n":"1"}`, `{"n":1}`},
		{"array order", `{"a":[1,2]}`, `{"a":[2,1]}`},
		{"key and value split", `{"ab":"c"}`, `{"a":"bc"}`},
		{"null and absent", `{"a":null}`, `{}`},
	}
	for _, c := range differ {
		t.Run(c.name, func(t *testing.T) {
			ka, _ := key(t, nil, c.a)
			kb, _ := key(t, nil, c.b)
			if ka == kb {
				t.Fatalf("%s and %s: same key", c.a, c.b)
			}
		})
	}
	decoded, _ := key(t, map[string]any{"n": 1.0, "s": "x"}, "")
	raw, _ := key(t, nil, `{"s":"x","n":1}`)
	if decoded != raw {
		t.Error("decoded arguments and the same JSON text: keys differ")
	}
	if k1, _ := callcache.KeyOf("alice", "t", "t", nil, json.RawMessage(`{}`)); k1 == func() callcache.Key {
		k, _ := callcache.KeyOf("bob", "t", "t", nil, json.RawMessage(`{}`))
		return k
	}() {
		t.Error("two callers: same key")
	}
}

func TestKeyIsBounded(t *testing.T) {
	big := `{"s":"` + strings.Repeat("x", 1<<20) + `"}`
	deep := strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100)
	wide := map[string]any{}
	for i := range 100_000 {
		wide[fmt.Sprint(i)] = i
	}
	for name, c := range map[string]struct {
		args any
		raw  string
	}{"1 MiB text": {nil, big}, "depth 100": {nil, deep}, "100 000 keys": {wide, ""}} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			if _, ok := key(t, c.args, c.raw); ok {
				t.Fatal("keyed: over the bounds, it must skip the cache")
			}
			if d := time.Since(start); d > 100*time.Millisecond {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestLRUBounds(t *testing.T) {
	l := callcache.NewLRU(100, 10_000, 4) // a caller holds 25 entries, 2 500 bytes
	now := time.Now()
	put := func(who string, i, size int) callcache.Key {
		k, _ := callcache.KeyOf(who, "t", "t", map[string]any{"i": float64(i)}, nil)
		l.Put(k, who, callcache.Entry{Value: i, Size: size, Stored: now, Expires: now.Add(time.Minute), Group: "t"})
		return k
	}
	first := put("alice", 0, 10)
	for i := 1; i < 1000; i++ {
		put("mallory", i, 10)
	}
	if _, ok := l.Get(first, now); !ok {
		t.Fatal("mallory's thousand answers pushed out alice's")
	}
	if n, b := l.Len(); n != 26 || b != 260 {
		t.Fatalf("entries %d bytes %d, want 26 and 260", n, b)
	}
	if _, ok := l.Get(first, now.Add(2*time.Minute)); ok {
		t.Fatal("an expired answer was served")
	}
	put("bob", 1, 3000) // over a caller's share: not kept
	for i := range 30 {
		put("carol", i, 100)
	}
	if _, b := l.Len(); b > 10_000 {
		t.Fatalf("%d bytes kept", b)
	}
	l.Forget("t")
	if n, _ := l.Len(); n != 0 {
		t.Fatalf("%d entries after Forget", n)
	}
}

func TestFlightsJoinAndKeep(t *testing.T) {
	fs := callcache.NewFlights[string](10)
	k, _ := callcache.KeyOf("a", "t", "t", nil, nil)
	now := time.Now()
	f, lead := fs.Lead(k, "1", now)
	g, joined := fs.Lead(k, "2", now)
	if !lead || joined || g != f {
		t.Fatal("the second call did not join the first")
	}
	fs.Detach(f, time.Minute)
	fs.End(k, f, "late", now)
	if v, _ := g.Value(); v != "late" {
		t.Fatalf("joiner got %q", v)
	}
	if h, lead := fs.Lead(k, "3", now.Add(time.Second)); lead || h != f {
		t.Fatal("a repeat within the window ran again")
	}
	if _, lead := fs.Lead(k, "4", now.Add(2*time.Minute)); !lead {
		t.Fatal("a repeat after the window did not lead")
	}
}

// BenchmarkKeyOf keys small arguments, and 1 MiB ones (refused after the
// bound, in bounded time).
func BenchmarkKeyOf(b *testing.B) {
	small := map[string]any{"q": "rome", "days": 3.0, "units": "metric"}
	big := json.RawMessage(`{"s":"` + strings.Repeat("x", 1<<20) + `"}`)
	wide := map[string]any{}
	for i := range 1 << 16 {
		wide[fmt.Sprint(i)] = strings.Repeat("y", 16)
	}
	b.Run("small", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			callcache.KeyOf("alice", "t", "search", small, nil)
		}
	})
	b.Run("1MiB_raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			callcache.KeyOf("alice", "t", "search", nil, big)
		}
	})
	b.Run("1MiB_decoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			callcache.KeyOf("alice", "t", "search", wide, nil)
		}
	})
}

// TestKeyNumbersDecodedOrSent: a number an SDK decoded (float64, int) and
// the same number as sent key alike.
func TestKeyNumbersDecodedOrSent(t *testing.T) {
	for _, c := range []struct {
		v   any
		raw string
	}{{3.0, "3"}, {300.0, "3e2"}, {-40.0, "-40.0"}, {0.25, "0.25"}, {1e20, "100000000000000000000"}, {7, "7"}, {int64(-10), "-10"}, {0.0, "0"}} {
		a, _ := key(t, map[string]any{"n": c.v}, "")
		b, _ := key(t, nil, `{"n":`+c.raw+`}`)
		if a != b {
			t.Errorf("%v and %s: keys differ", c.v, c.raw)
		}
	}
}
