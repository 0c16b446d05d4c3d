package jsonsize_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
)

// TestCutMiddle: within n bytes, valid UTF-8 whatever the runes, the head
// and the tail kept, and the mark naming exactly the bytes left out.
func TestCutMiddle(t *testing.T) {
	for _, r := range []string{"a", "é", "€", "😀"} {
		s := "HEAD" + strings.Repeat(r, 5000) + "TAIL"
		for _, n := range []int{0, 10, 63, 100, 101, 4097, len(s) - 1, len(s), len(s) + 5} {
			got := jsonsize.CutMiddle(s, n)
			if len(got) > max(n, 0) && len(s) > n {
				t.Fatalf("%q, n=%d: %d bytes", r, n, len(got))
			}
			if !utf8.ValidString(got) {
				t.Fatalf("%q, n=%d: invalid UTF-8", r, n)
			}
			if n >= len(s) {
				if got != s {
					t.Fatalf("%q, n=%d: cut a text that fits", r, n)
				}
				continue
			}
			if n < 100 {
				continue // too short for a mark: the head only
			}
			head, rest, ok := strings.Cut(got, "\n…[")
			num, tail, ok2 := strings.Cut(rest, " bytes left out]…\n")
			if !ok || !ok2 || !strings.HasPrefix(head, "HEAD") || !strings.HasSuffix(tail, "TAIL") {
				t.Fatalf("%q, n=%d: %q", r, n, got)
			}
			if want := len(s) - len(head) - len(tail); num != strconv.Itoa(want) {
				t.Fatalf("%q, n=%d: the mark says %s bytes, %d were left out", r, n, num, want)
			}
		}
	}
}
