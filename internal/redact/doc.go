// Package redact decides what the model and the log read: a Redactor
// removes secrets (values under secret names, fields tagged
// mcpwrap:"secret", secret-shaped text such as bearer tokens, JWTs, API
// keys, key blocks and URL passwords) from arguments, errors and results,
// and Public makes an error's text fit for the model (no hosts, no
// stacks). The text helpers cap text and make it safe to print. Its one
// way in is NewRedactor:
//
//	r := redact.NewRedactor("pin")
//	safe := r.Scrub(text, r.Secrets(args, header))
//
// A Redactor is immutable and safe for concurrent use.
package redact
