package audit

import (
	"strings"
	"testing"
)

// TestLeakPatternsSeeOneDigitPorts: an internal address with a one-digit
// port ("dial tcp 127.0.0.1:9") went unseen, so no_leak passed on answers
// that echoed it.
func TestLeakPatternsSeeOneDigitPorts(t *testing.T) {
	a := &auditor{}
	for _, s := range []string{`Get "http://127.0.0.1:9/api": dial tcp 127.0.0.1:9: connect: connection refused`, `localhost:5432 refused`} {
		if a.leaks(s) == "" {
			t.Errorf("%q: no leak seen", s)
		}
	}
	if got := a.leaks("page 3 of 9 ready"); got != "" {
		t.Errorf("a harmless answer flagged: %s", got)
	}
}

// TestEveryLeakPatternIsSearched: each pattern finds its example, and its
// match holds one of the hints that decide whether it is searched at all.
func TestEveryLeakPatternIsSearched(t *testing.T) {
	examples := map[string]string{
		"an API key (sk-…)":              "key sk-abcdefghijklmnopqrstuvwx in use",
		"a GitHub token":                 "auth ghp_abcdefghijklmnopqrstuvwxyz0123456789 failed",
		"an AWS access key id":           "id AKIAABCDEFGHIJKLMNOP denied",
		"a Slack token":                  "xoxb-1234567890-abcdef revoked",
		"a private key":                  "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
		"a URL with credentials":         "dial postgres://app:pa55@db.example/x",
		"a password or token assignment": `config: PassWord = "hunter22"`,
		"a Go stack trace":               "panic: boom\n\ngoroutine 7 [running]:",
		"a JavaScript stack trace":       "TypeError: x\n    at handler (/srv/app.js:10:5)",
		"a Python traceback":             "Traceback (most recent call last):\n  File",
		"an internal address":            "upstream 10.0.0.7 unreachable",
	}
	a := &auditor{}
	for _, p := range leakPatterns {
		ex, ok := examples[p.what]
		if !ok {
			t.Errorf("no example for %s", p.what)
			continue
		}
		if got := a.leaks(ex); !strings.Contains(got, p.what) {
			t.Errorf("%q: %q, want %s", ex, got, p.what)
		}
		m := p.re.FindString(ex)
		if !hinted(m, strings.ToLower(m), p.hints, p.fold) {
			t.Errorf("%s: the match %q holds none of its hints %q", p.what, m, p.hints)
		}
	}
}

// BenchmarkLeaks is the leak check of a 1 MiB answer that holds none, the
// size of the huge_string probe's echo.
func BenchmarkLeaks(b *testing.B) {
	s := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}]}`
	a := &auditor{}
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for range b.N {
		if a.leaks(s) != "" {
			b.Fatal("a leak")
		}
	}
}
