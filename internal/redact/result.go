package redact

import "net/http"

// Secrets returns the values a call must never echo: those of args' secret
// parameters (secret names, WithSecretNames, fields tagged
// mcpwrap:"secret") and of its secret headers (Authorization, Cookie, …;
// for "Bearer x" the token too). args is the call's arguments
// (req.GetArguments(), or the typed argument struct). The walk is bounded,
// like the log line's. A nil Redactor uses the default secret names.
func (r *Redactor) Secrets(args any, header http.Header) []string {
	r = r.orDefault()
	var found []string
	if args != nil {
		r.SecretsIn(args, &found)
	}
	r.SecretHeaders(header, &found)
	return found
}

// Scrub returns s with every value of known (of 4 bytes or more) replaced
// by Redacted, then secret-shaped text (PEM blocks, bearer tokens, JWTs, API
// keys, URL passwords, "password=…" pairs) redacted as String does: the
// same redaction as the log line, for text the model will read.
func (r *Redactor) Scrub(s string, known []string) string { return r.scrub(s, known) }
