package obs

import (
	"log/slog"
	"testing"
)

// TestFlatGroup: the arguments by name become a group; JSON that is not a
// flat object of plain strings does not.
func TestFlatGroup(t *testing.T) {
	v, ok := flatGroup([]byte(`{"city":"<string, 5 bytes>","days":"<number>","key":"[REDACTED]"}`))
	if !ok || v.Kind() != slog.KindGroup || len(v.Group()) != 3 || v.Group()[2].Key != "key" || v.Group()[0].Value.String() != "<string, 5 bytes>" {
		t.Fatalf("flatGroup = %v, %v", v, ok)
	}
	for _, b := range []string{`{}`, `{"a":1}`, `{"a\"b":"x"}`, `"<array, 3 items>"`, `{"a":"x",}`, `{"a":"x"`, `{"a":"x","b":{"c":"d"}}`, `{"a""x"}`} {
		if _, ok := flatGroup([]byte(b)); ok {
			t.Errorf("flatGroup(%s) is a group", b)
		}
	}
}
