package logbuf

import "testing"

// TestStableEmptiesOnlyWhatDiffersBetweenRuns: Stable keeps a line's bytes
// but the time, duration, call id, session and stack, escaped quotes in a
// stack included, and refuses a line that is not JSON.
func TestStableEmptiesOnlyWhatDiffersBetweenRuns(t *testing.T) {
	var b Buffer
	_, _ = b.Write([]byte(`{"time":"2026-12-03T07:52:07.1Z","level":"ERROR","msg":"tool call","tool":"t","call_id":"6e6d6bfd54326f69",` +
		`"duration_ms":0.437,"session_id":"s-1","stack":"goroutine 7 [\"running\"]:\n\tmain.go:3","cause":"x"}` + "\n"))
	got, err := b.Stable()
	want := `{"time":,"level":"ERROR","msg":"tool call","tool":"t","call_id":,"duration_ms":,"session_id":,"stack":,"cause":"x"}` + "\n"
	if err != nil || got != want {
		t.Fatalf("Stable = %q, %v; want %q", got, err, want)
	}
	_, _ = b.Write([]byte("not json\n"))
	if _, err := b.Stable(); err == nil {
		t.Fatal("a line that is not JSON was taken")
	}
}
