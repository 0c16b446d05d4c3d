package errcases

import (
	"encoding/json"
	"strings"
)

// StructuredCase is an error result a handler builds itself, with secrets
// in its text and in its structured content, as a server does with its
// upstream's answer: Text and Structured are what the handler returns,
// Leaks what must reach neither the client nor the log, Keeps what the
// model must still read in the structured content (encoded as JSON).
type StructuredCase struct {
	Name       string
	Text       string
	Structured func() any
	Leaks      []string
	Keeps      []string
}

// The secrets of the structured cases.
const (
	leakToken    = "tok-9f8e7d6c5b4a"
	leakPassword = "hunter2!x"
	leakDSN      = "s3cr3t-dsn-pw"
	leakBearer   = "abcdefghijklmnopqrstuvwx"
	leakKey      = "k-41f9e2d7c0"
	leakPin      = "pw-7a7a7a7a"
)

// upstreamAnswer is an upstream's 400 answer as a Go struct: a handler may
// put one as it is in structuredContent.
type upstreamAnswer struct {
	Status   int               `json:"status"`
	Message  string            `json:"message"`
	Password string            `json:"db_password"`
	Headers  map[string]string `json:"headers"`
}

// deep nests v under n levels of {"cause": …}.
func deep(n int, v any) any {
	for range n {
		v = map[string]any{"cause": v}
	}
	return v
}

// StructuredCases are the handler-built error results whose structured
// content holds secrets: token=… and password=… pairs, a DSN, secrets deep
// in nesting and in arrays, values under secret keys (repeated elsewhere),
// a secret as a key, a Go struct and raw JSON.
func StructuredCases() []StructuredCase {
	pairs := "upstream answered 400: token=" + leakToken + " password=" + leakPassword
	return []StructuredCase{
		{Name: "pairs", Text: pairs,
			Structured: func() any { return map[string]any{"error": map[string]any{"message": pairs, "status": 400.0}} },
			Leaks:      []string{leakToken, leakPassword}, Keeps: []string{`"status":400`, `token=[REDACTED]`, `upstream answered 400`}},
		{Name: "dsn", Text: "connect failed",
			Structured: func() any {
				return map[string]any{"detail": "connect postgres://svc:" + leakDSN + "@10.0.3.7/orders: refused"}
			},
			Leaks: []string{leakDSN}, Keeps: []string{"postgres://svc:[REDACTED]@"}},
		{Name: "deep", Text: "queue rejected",
			Structured: func() any { return deep(40, "password="+leakPassword) },
			Leaks:      []string{leakPassword}, Keeps: []string{`"cause":{"cause":`}},
		{Name: "array", Text: "batch failed",
			Structured: func() any {
				return map[string]any{"errors": []any{
					map[string]any{"msg": "row 1 ok"},
					map[string]any{"msg": "Authorization: Bearer " + leakBearer},
					[]any{"nested", "token=" + leakToken},
				}}
			},
			Leaks: []string{leakBearer, leakToken}, Keeps: []string{"row 1 ok", "nested"}},
		{Name: "secret_keys", Text: "request was: " + leakKey,
			Structured: func() any {
				return map[string]any{"request": map[string]any{
					"headers":  map[string]any{"X-Api-Key": leakKey, "Accept": "application/json"},
					"password": map[string]any{"value": leakPin},
				}, "echo": "used " + leakPin}
			},
			Leaks: []string{leakKey, leakPin}, Keeps: []string{`"X-Api-Key":"[REDACTED]"`, "application/json", `"echo":"used [REDACTED]"`}},
		{Name: "secret_as_key", Text: "unexpected field",
			Structured: func() any { return map[string]any{"Bearer " + leakBearer: true} },
			Leaks:      []string{leakBearer}},
		{Name: "struct", Text: "upstream 400",
			Structured: func() any {
				return upstreamAnswer{Status: 400, Message: "bad request, token=" + leakToken, Password: leakPassword,
					Headers: map[string]string{"Cookie": "sid=" + leakPin}}
			},
			Leaks: []string{leakToken, leakPassword, leakPin}, Keeps: []string{`"status":400`, "bad request"}},
		{Name: "raw_json", Text: "upstream 400",
			Structured: func() any {
				return json.RawMessage(`{"error":{"code":"bad_request","api_key":"` + leakKey + `","hint":"password=` + leakPassword + `"}}`)
			},
			Leaks: []string{leakKey, leakPassword}, Keeps: []string{`"code":"bad_request"`}},
	}
}

// Leaked returns the first of c.Leaks found in any of texts, "" for none.
func (c StructuredCase) Leaked(texts ...string) string {
	for _, l := range c.Leaks {
		for _, t := range texts {
			if strings.Contains(t, l) {
				return l
			}
		}
	}
	return ""
}
