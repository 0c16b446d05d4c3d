package redact

import "strings"

// pairKeys are the endings of a key whose value is secret in a "key=value"
// or "key: value" pair, lower-case, without '-' and '_'.
var pairKeys = []string{"password", "passwd", "pwd", "secret", "token", "apikey", "accesskey", "auth"}

// assignKeys are the endings of a key whose value is secret in a
// "key=value" pair only, as in a signed URL's query (X-Amz-Signature=…,
// an Azure SAS's sig=…, X-Amz-Credential=…): a signature grants access as
// a token does. "signature: invalid" is a sentence, not a pair.
var assignKeys = []string{"signature", "sig", "credential"}

// redactPairs replaces the value of every pair whose key ends in a
// pairKeys word ("password=x", "db_password: 'x'", "API-Key=x"). The key
// is the run of letters, '_' and '-' before the separator (a quote and
// spaces may come between), and a scheme before "://" is no key; the value runs to a space, quote, '&', ',',
// ';' or bracket, so "(password=x)" keeps its ")". One pass, no regular
// expression: the cost is linear in len(s) with a small constant.
func redactPairs(s string) string {
	var b strings.Builder
	last := 0 // s[last:] is not yet copied to b
	for i := 0; i < len(s); i++ {
		if s[i] != '=' && s[i] != ':' {
			continue
		}
		if s[i] == ':' && strings.HasPrefix(s[i+1:], "//") {
			continue // a URI's scheme ("secret://deploy-keys"), not a key: an identifier the operator needs
		}
		if !secretKeyBefore(s, i, s[i] == '=') {
			continue
		}
		v := i + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v < len(s) && (s[v] == '"' || s[v] == '\'') {
			v++
		}
		end := v
		for end < len(s) && !valueStop(s[end]) {
			end++
		}
		if end == v {
			continue
		}
		b.WriteString(s[last:v])
		b.WriteString(Redacted)
		last, i = end, end-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretKeyBefore reports whether the key ending before the separator at
// sep is a secret's; assign says the separator is '='.
func secretKeyBefore(s string, sep int, assign bool) bool {
	e := sep
	for e > 0 && (s[e-1] == ' ' || s[e-1] == '\t') {
		e--
	}
	if e > 0 && (s[e-1] == '"' || s[e-1] == '\'') {
		e--
	}
	start := e
	for start > 0 && keyByte(s[start-1]) {
		start--
	}
	if start == e || e-start > 64 || (start > 0 && isDigit(s[start-1])) {
		return false
	}
	var buf [64]byte
	k := appendNormalized(buf[:0], s[start:e])
	for _, w := range pairKeys {
		if len(k) >= len(w) && string(k[len(k)-len(w):]) == w {
			return true
		}
	}
	if assign {
		for _, w := range assignKeys {
			if len(k) >= len(w) && string(k[len(k)-len(w):]) == w {
				return true
			}
		}
	}
	return false
}

func keyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func valueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '&', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>':
		return true
	}
	return false
}
