package observe

import (
	"regexp"
	"strings"
)

// maxPrivateScan bounds the text Private looks at; an error text longer
// than this is private by length alone (the model is better served by the
// call id than by kilobytes of someone else's output).
const maxPrivateScan = 4 << 10

// internalShapes are what marks text as written for the operator, not the
// model: an address (an IPv4 literal, host:port, a URL with a host), a
// stack trace.
var internalShapes = regexp.MustCompile(
	`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b` + // IPv4
		`|\b[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*:\d{2,5}\b` + // host:port
		`|\[[0-9A-Fa-f:]*:[0-9A-Fa-f:]*\](?::\d+)?` + // [IPv6]
		`|[A-Za-z][A-Za-z0-9+.-]*://[^\s/"']+` + // scheme://host
		`|goroutine \d+ \[|\.go:\d+`) // a stack

// Private reports whether error text s must not be shown to the model: it
// holds a secret-shaped value (anything String would remove, or one of
// known, the call's secret values), an address or URL, or a stack, or it
// is longer than 4 KiB. Text that is not private is what a server wrote
// for its caller ("rate limit exceeded: too many requests from this
// session", `access denied: notes/x.md is outside the allowed directory`),
// which the bare SDK would have sent too. The cost is linear in
// min(len(s), 4 KiB).
func (r *Redactor) Private(s string, known []string) bool {
	if len(s) > maxPrivateScan {
		return true
	}
	if r.scrub(s, known) != s {
		return true
	}
	if !strings.ContainsAny(s, ".:") {
		return false
	}
	return internalShapes.MatchString(s)
}
