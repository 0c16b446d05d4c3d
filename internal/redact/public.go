package redact

import (
	"regexp"
	"strings"
)

// The marks Public leaves where it took something out.
const (
	// HostMark replaces an address: an IP address, host:port, the host of
	// a URL.
	HostMark = "[host]"
	// StackMark replaces a stack trace and the source locations in it.
	StackMark = "[stack]"
)

// maxPublicBytes (3 KiB) bounds the text Public returns: the head of a longer
// error and its tail (where its cause usually is), with a mark between.
const maxPublicBytes = 3 << 10

// publicTail is how much of the end of a long error Public keeps.
const publicTail = 1 << 10

// addressShapes are what makes error text the operator's and not the
// model's: an address (an IPv4 literal, [IPv6], host:port), which Public
// replaces with HostMark.
var addressShapes = regexp.MustCompile(
	`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?::\d{1,5})?\b` + // IPv4
		`|\[[0-9A-Fa-f:]*:[0-9A-Fa-f:]*\](?::\d+)?` + // [IPv6]
		`|\b[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*:\d{2,5}\b`) // host:port

// dsnHost is the host of a key=value DSN ("host=db.internal").
var dsnHost = regexp.MustCompile(`\b(host=)[^\s"',;]+`)

// urlShape is a URL: its scheme, its authority (user, host and port; not
// the punctuation after it) and its path, then any query or fragment.
var urlShape = regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9+.-]*://)[^\s/"'?#<>]*[^\s/"'?#<>:;,.)]([^\s"'?#<>]*)([?#][^\s"'<>]*)?`)

// stackShape is a Go stack trace's goroutine header, from which the rest
// of the text is a stack, and a source location of a frame.
var (
	goroutineHeader = regexp.MustCompile(`goroutine \d+ \[`)
	sourceLocation  = regexp.MustCompile(`[^\s():]*\.go:\d+(?: \+0x[0-9a-f]+)?`)
)

// Public returns error text s as the model may read it, and whether
// anything worth reading is left. It is the text with the sensitive spans
// replaced and its words kept: the call's secrets (known) and
// secret-shaped values redacted as Scrub does, every address (an IP
// address, host:port, a DSN's host=…, a URL's host, user and port, a name
// under an internal-only suffix such as git-03.internal) replaced
// by "[host]", a URL's query and fragment by "[REDACTED]", a Go stack trace
// and source locations by "[stack]"; a text longer than 3 KiB keeps its
// head and its tail (a long error's cause is usually at its end). `GET
// http://10.0.0.7/api/v3/repos/o/r/issues/1: 404 Not Found` reads `GET
// http://[host]/api/v3/repos/o/r/issues/1: 404 Not Found`. Nothing is worth
// reading when fewer than two words of three letters or more are left
// outside the marks. The cost is linear in min(len(s), maxPublicBytes).
func (r *Redactor) Public(s string, known []string) (string, bool) {
	r = r.orDefault()
	if len(s) > maxPublicBytes {
		head := s[:RuneCut(s, maxPublicBytes-publicTail-len(cutMark)+ScrubMargin)]
		tail := s[tailCut(s, publicTail+ScrubMargin):]
		head = r.publicPart(head, known)
		tail = r.publicPart(tail, known)
		head = head[:RuneCut(head, maxPublicBytes-publicTail-len(cutMark))]
		tail = tail[tailCut(tail, publicTail):]
		s = head + cutMark + tail
	} else {
		s = r.publicPart(s, known)
	}
	s = SafeText(s)
	return s, worthReading(s)
}

// cutMark stands for what Public left out of a long text.
const cutMark = " […] "

// tailCut is the smallest index >= len(s)-n that starts a rune of s.
func tailCut(s string, n int) int {
	i := max(len(s)-n, 0)
	for i < len(s) && i > 0 && s[i]&0xC0 == 0x80 {
		i++
	}
	return i
}

func (r *Redactor) publicPart(s string, known []string) string {
	s = r.scrub(s, known)
	if loc := goroutineHeader.FindStringIndex(s); loc != nil {
		s = s[:loc[0]] + StackMark
	}
	if strings.Contains(s, ".go:") {
		s = sourceLocation.ReplaceAllString(s, StackMark)
	}
	if strings.Contains(s, "://") {
		s = urlShape.ReplaceAllStringFunc(s, maskURL)
	}
	if strings.ContainsAny(s, ".:") {
		s = addressShapes.ReplaceAllString(s, HostMark)
	}
	if strings.Contains(s, "host=") {
		s = dsnHost.ReplaceAllString(s, "${1}"+HostMark)
	}
	return redactInternalHosts(s)
}

// maskURL is a URL urlShape matched with its host replaced by HostMark
// and its query by Redacted.
func maskURL(u string) string {
	m := urlShape.FindStringSubmatch(u)
	out := m[1] + HostMark + m[2]
	if m[3] != "" {
		// Punctuation ending the sentence is not the query's.
		q := strings.TrimRight(m[3], ":;,.)")
		out += "?" + Redacted + m[3][len(q):]
	}
	return out
}

// worthReading reports whether s has two words of three letters or more
// outside the marks.
func worthReading(s string) bool {
	for _, m := range [...]string{HostMark, StackMark, Redacted} {
		s = strings.ReplaceAll(s, m, " ")
	}
	return words(s) >= 2
}

// words counts the runs of three letters or more in s (any non-ASCII
// byte counts as a letter).
func words(s string) int {
	n, run := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if 'a' <= c && c <= 'z' || s[i] >= 0x80 {
			run++
			continue
		}
		if run >= 3 {
			n++
		}
		run = 0
	}
	if run >= 3 {
		n++
	}
	return n
}
