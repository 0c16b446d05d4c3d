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
		if !isPairSeparator(s, i) || !secretKeyBefore(s, i, s[i] == '=') {
			continue
		}
		v, end := pairValue(s, i+1)
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

// isPairSeparator reports whether s[i] separates a key from its value:
// '=', or ':' but for a URI's scheme ("secret://deploy-keys"), which is
// no key but an identifier the operator needs.
func isPairSeparator(s string, i int) bool {
	return s[i] == '=' || s[i] == ':' && !strings.HasPrefix(s[i+1:], "//")
}

// pairValue is where the value after a separator ending at from starts
// (past spaces and an opening quote) and ends (at valueStop).
func pairValue(s string, from int) (start, end int) {
	start = from
	for start < len(s) && isBlank(s[start]) {
		start++
	}
	if start < len(s) && isQuote(s[start]) {
		start++
	}
	end = start
	for end < len(s) && !valueStop(s[end]) {
		end++
	}
	return start, end
}

// secretKeyBefore reports whether the key ending before the separator at
// sep is a secret's; assign says the separator is '='.
func secretKeyBefore(s string, sep int, assign bool) bool {
	start, end := keyBefore(s, sep)
	if start == end || end-start > 64 || (start > 0 && isDigit(s[start-1])) {
		return false
	}
	var buf [64]byte
	k := appendNormalized(buf[:0], s[start:end])
	return endsInAny(k, pairKeys) || assign && endsInAny(k, assignKeys)
}

// keyBefore is where the key before the separator at sep starts and ends:
// the run of keyBytes before it, past spaces and a closing quote.
func keyBefore(s string, sep int) (start, end int) {
	end = sep
	for end > 0 && isBlank(s[end-1]) {
		end--
	}
	if end > 0 && isQuote(s[end-1]) {
		end--
	}
	start = end
	for start > 0 && keyByte(s[start-1]) {
		start--
	}
	return start, end
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

// isBlank reports whether c is a space or a tab, which may stand around a
// pair's separator.
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// isQuote reports whether c is a quote that may open a pair's value or
// close its key.
func isQuote(c byte) bool { return c == '"' || c == '\'' }
