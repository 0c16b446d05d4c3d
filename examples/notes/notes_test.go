package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestNotes runs the comparison end to end and checks that it shows both
// the problem (bare) and the fix (wrapped).
func TestNotes(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("notes failed: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"without mcpwrap: JSON-RPC error -32603: pq: password authentication failed (postgres://notes:s3cret",
		"without mcpwrap: connection dropped",
		"without mcpwrap: no answer after 2s",
		`with mcpwrap:    JSON-RPC error -32002: no note for 1999-01-01 data={"code":"not_found"`,
		`"uri":"note://archive/1999-01-01"`,
		`with mcpwrap:    JSON-RPC error -32602: invalid arguments for prompt "summary": parameter "style" must be one of`,
		`with mcpwrap:    JSON-RPC error -32603: reading resource "note://search" timed out after 500ms`,
		`"outcome":"panic"`,
		`"stack":"goroutine`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(got)
	}
}
