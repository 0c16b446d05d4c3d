package redact

import (
	"regexp"
	"slices"
	"strings"
)

// Redacted replaces every secret value in logs, span attributes and
// scrubbed results.
const Redacted = "[REDACTED]"

// defaultSecretNames are the argument, field and header names whose values
// are always redacted. Names match case-insensitively, ignoring '-', '_',
// '.' and spaces, and also as a suffix ("db_password", "X-Api-Key").
var defaultSecretNames = [...]string{
	"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "accesskey", "privatekey",
	"authorization", "auth", "cookie", "setcookie", "credential", "credentials", "sessionid", "clientsecret",
	"proxyauthorization",
}

// secretShapes are values that are secrets whatever their key: bearer
// tokens, JWTs, well-known API key formats. Each runs only when the text
// holds its marker (shapeMarkers), so plain text pays a few substring
// searches, not a regular expression.
var secretShapes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9\-._~+/]{8,}=*`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`),
	regexp.MustCompile(`\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}|\b(ghp|gho|ghu|ghs|ghr|github_pat|glpat|xox[abprs])[-_][A-Za-z0-9_-]{10,}|\bAKIA[0-9A-Z]{16}\b|\bAIza[0-9A-Za-z_-]{30,}`),
}

// shapeMarkers are, per secretShape, substrings one of which every match
// contains; foldMarkers are matched case-insensitively.
var (
	foldMarkers  = []string{"bearer", "basic", "token"}
	shapeMarkers = [][]string{nil, {"eyJ"}, {"sk-", "pk-", "rk-", "gh", "glpat", "xox", "AKIA", "AIza"}}
)

// minShapeLen is the shortest match of secretShapes ("token " plus 8,
// "ghp_" plus 10).
const minShapeLen = 14

var urlPassword = regexp.MustCompile(`(://[^/\s:@]+:)([^@\s/]+)@`)

// Redactor removes secrets from values before they reach a log line, a span
// or a result. It is immutable after NewRedactor and safe for concurrent
// use; a nil *Redactor redacts the default names only.
type Redactor struct {
	names []string // normalised
}

// defaultRedactor serves nil *Redactor receivers; it is never modified.
var defaultRedactor = NewRedactor()

// NewRedactor returns a Redactor for the default secret names (password,
// token, api_key, authorization, cookie and the like) plus names.
func NewRedactor(names ...string) *Redactor {
	r := &Redactor{}
	for _, n := range slices.Concat(defaultSecretNames[:], names) {
		if n = normalize(n); n != "" && !slices.Contains(r.names, n) {
			r.names = append(r.names, n)
		}
	}
	return r
}

func (r *Redactor) orDefault() *Redactor {
	if r == nil {
		return defaultRedactor
	}
	return r
}

func normalize(s string) string {
	var buf [64]byte
	return string(appendNormalized(buf[:0], s))
}

// appendNormalized lower-cases s and drops '-', '_', '.' and spaces,
// without allocating when dst has room.
func appendNormalized(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '-', '_', '.', ' ': // separators are left out
		default:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
	}
	return dst
}

// IsSecretName reports whether values under this key are secret.
func (r *Redactor) IsSecretName(key string) bool {
	r = r.orDefault()
	var buf [64]byte
	k := appendNormalized(buf[:0], key)
	return len(k) > 0 && endsInAny(k, r.names)
}

// endsInAny reports whether the normalised name k ends in one of words.
func endsInAny(k []byte, words []string) bool {
	for _, w := range words {
		if len(k) >= len(w) && string(k[len(k)-len(w):]) == w {
			return true
		}
	}
	return false
}

// String removes secret-shaped substrings from s: PEM blocks and other
// multi-line key material, bearer tokens, JWTs, API keys, URL passwords and
// "password=…" pairs. Its cost is linear in len(s); callers cap long text
// first.
func (r *Redactor) String(s string) string {
	s = redactKeyBlocks(s)
	if strings.ContainsAny(s, "=:") {
		if strings.Contains(s, "://") {
			s = urlPassword.ReplaceAllString(s, "${1}"+Redacted+"@")
		}
		s = redactPairs(s)
	}
	if len(s) < minShapeLen {
		return s
	}
	for i, re := range secretShapes {
		if hasMarker(s, i) {
			s = re.ReplaceAllString(s, Redacted)
		}
	}
	return s
}

func hasMarker(s string, shape int) bool {
	if shape == 0 {
		return slices.ContainsFunc(foldMarkers, func(m string) bool { return containsFold(s, m) })
	}
	return slices.ContainsFunc(shapeMarkers[shape], func(m string) bool { return strings.Contains(s, m) })
}

// containsFold reports whether s contains the lower-case ASCII word,
// ignoring case, without allocating.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 != word[0] {
			continue
		}
		j := 1
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// scrub returns s with every known secret value replaced, then String.
func (r *Redactor) scrub(s string, known []string) string {
	for _, k := range known {
		if len(k) >= 4 && strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	return r.orDefault().String(s)
}

// keyBlocks are the openings of multi-line key material, each with the
// text that closes it: PEM (RSA, EC, OpenSSH, PGP armour, certificates),
// SSH2 (RFC 4716) and PuTTY key files. A block whose end is missing (cut
// by a cap, or never there) is redacted to the end of the text.
var keyBlocks = []keyBlock{
	{"-----BEGIN ", "-----END ", "-----"},
	{"---- BEGIN ", "---- END ", " ----"},
	{"PuTTY-User-Key-File-", "Private-MAC:", ""},
}

// keyBlock is one kind of key block: its opening, the text that closes it
// and what ends that closing line ("" for PuTTY's MAC line).
type keyBlock struct{ begin, end, endTail string }

// redactKeyBlocks replaces every key block in s with Redacted.
func redactKeyBlocks(s string) string {
	if !strings.Contains(s, "BEGIN ") && !strings.Contains(s, "PuTTY-User-Key-File-") {
		return s
	}
	for _, kb := range keyBlocks {
		s = kb.redact(s)
	}
	return s
}

// redact replaces every block of this kind in s with Redacted.
func (kb keyBlock) redact(s string) string {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, kb.begin)
		if i < 0 {
			break
		}
		b.WriteString(rest[:i])
		b.WriteString(Redacted)
		rest = kb.after(rest[i+len(kb.begin):])
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

// after returns what follows the end of a block whose opening is just
// before rest; "" when the block does not end.
func (kb keyBlock) after(rest string) string {
	j := strings.Index(rest, kb.end)
	if j < 0 {
		return ""
	}
	rest = rest[j+len(kb.end):]
	if kb.endTail == "" { // PuTTY: the MAC runs to the end of its line
		return rest[min(len(rest), macEnd(rest)):]
	}
	k := strings.Index(rest, kb.endTail)
	if k < 0 {
		return ""
	}
	return rest[k+len(kb.endTail):]
}

// macEnd is where a PuTTY "Private-MAC: <hex>" value ends: past spaces,
// then hex digits.
func macEnd(s string) int {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	for i < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[i]) >= 0 {
		i++
	}
	return i
}

// uri is String for a resource URI: its scheme is the URI's name, never a
// secret's key ("secret:deploy-keys" keeps "secret:"), and the rest is
// redacted as any text is.
func (r *Redactor) uri(s string) string {
	if n := schemeLen(s); n > 0 && !strings.HasPrefix(s[n+1:], "//") {
		return s[:n+1] + r.String(s[n+1:])
	}
	return r.String(s) // "scheme://" is no pair to String
}

// schemeLen is the length of s's URI scheme (RFC 3986: a letter, then
// letters, digits, '+', '-', '.'), ending before a ':'; 0 when s has none.
func schemeLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case i > 0 && (isDigit(c) || strings.IndexByte("+-.", c) >= 0):
		case i > 0 && c == ':':
			return i
		default:
			return 0
		}
	}
	return 0
}

// maxURIBytes caps a resource URI on the log line and the span.
const maxURIBytes = 1 << 10

// URI returns a resource URI safe to log: capped, with the password of
// its user info, secret query parameters and secret-shaped text redacted.
func (r *Redactor) URI(uri string) string {
	return SafeText(r.orDefault().uri(CapString(uri, maxURIBytes)))
}
