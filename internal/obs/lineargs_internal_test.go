package obs

import (
	"context"
	"log/slog"
	"net/http"
	"net/textproto"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
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

// TestProtocolHeaderKeyIsCanonical: newRecording indexes the header by
// headerProtocolVersion, which finds it only in its canonical form.
func TestProtocolHeaderKeyIsCanonical(t *testing.T) {
	if k := textproto.CanonicalMIMEHeaderKey(headerProtocolVersion); k != headerProtocolVersion {
		t.Fatalf("header key %q is not canonical (%q)", headerProtocolVersion, k)
	}
	h := http.Header{}
	h.Set("mcp-protocol-version", "2025-11-25")
	c := New().newRecording(context.Background(), &call.Request{Kind: call.Tool, Name: "t", Header: h}, "id", time.Now())
	if c.protocol != "2025-11-25" {
		t.Fatalf("protocol %q from the header, want 2025-11-25", c.protocol)
	}
}
