package audit

import "testing"

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
