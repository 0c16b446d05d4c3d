package errs

import "errors"

// HTTPCause reads the cause FromStatus records, for the tests of package
// errs_test: which upstream answered which status.
func HTTPCause(err error) (upstream string, status int, ok bool) {
	var he *httpError
	if !errors.As(err, &he) {
		return "", 0, false
	}
	return he.upstream, he.status, true
}
