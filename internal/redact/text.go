package redact

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// CapString cuts s to at most n bytes on a rune boundary and says how long
// it was.
func CapString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:RuneCut(s, n)] + truncated(len(s))
}

// CapBytes is CapString for bytes, copying only what is kept.
func CapBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + truncated(len(b))
}

// RuneCut is the largest index <= n that starts a rune of s.
func RuneCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

func truncated(total int) string { return "…(truncated, " + strconv.Itoa(total) + " bytes)" }

// ScrubMargin is how much text past a cap is scrubbed with what is kept,
// so that a secret straddling the cut is still recognised and no prefix of
// it survives.
const ScrubMargin = 256

// CapScrub caps s to n bytes, scrubs what is kept (plus a margin) and
// makes it safe to print: the cost depends on n, not on len(s).
func (r *Redactor) CapScrub(s string, n int, known []string) string {
	total := len(s)
	if total > n+ScrubMargin {
		s = s[:RuneCut(s, n+ScrubMargin)]
	}
	s = r.scrub(s, known)
	if total > n {
		s = s[:RuneCut(s, n)] + truncated(total)
	}
	return SafeText(s)
}

// SafeText returns s as valid UTF-8 with invalid bytes replaced by U+FFFD
// and the controls that reorder or hide text on a terminal (bidi
// overrides and isolates, zero-width marks) written as \u202e-style
// escapes. It does not allocate when s needs nothing.
func SafeText(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || hidden(r) {
			return rewrite(s, i)
		}
		i += size
	}
	return s
}

// SafeBytes reports whether SafeText would leave b as it is.
func SafeBytes(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError || hidden(r) {
			return false
		}
		i += size
	}
	return true
}

func rewrite(s string, from int) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:from])
	for i := from; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// hidden reports whether r changes how surrounding text is displayed
// without being visible itself.
func hidden(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F, r == 0xFEFF:
		return true
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069, 0x200B <= r && r <= 0x200D:
		return true
	}
	return false
}

// ErrorText returns err.Error() without ever panicking: a typed nil error
// and an error whose Error method panics give a placeholder naming the
// type, so that logging a broken error cannot take the call down with it.
func ErrorText(err error) (s string) {
	if err == nil {
		return ""
	}
	if errbase.IsNil(err) {
		return "<nil " + reflect.TypeOf(err).String() + ">"
	}
	defer func() {
		if p := recover(); p != nil {
			s = "<" + reflect.TypeOf(err).String() + ".Error() panicked>"
		}
	}()
	return err.Error()
}
