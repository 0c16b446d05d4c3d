package redact_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

type valuer struct{ secret string }

func (valuer) LogValue() slog.Value { return slog.StringValue(redact.Redacted) }

type loginArgs struct {
	User string `json:"user"`
	PIN  string `json:"pin" mcpwrap:"secret"`
}

func TestRedactorValue(t *testing.T) {
	r := redact.NewRedactor("otp")
	type nested struct {
		Key   string `json:"key" mcpwrap:"secret"`
		Label string `json:"label"`
	}
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"secret names", map[string]any{"Password": "x1", "X-Api-Key": "x2", "db_token": "x3", "otp": "x4", "max_tokens": 5.0},
			`{"Password":"[REDACTED]","X-Api-Key":"[REDACTED]","db_token":"[REDACTED]","max_tokens":5,"otp":"[REDACTED]"}`},
		{"bearer and jwt shapes", map[string]any{"h": "Bearer abcdefghijkl", "j": "eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl"},
			`{"h":"[REDACTED]","j":"[REDACTED]"}`},
		{"struct tag", nested{Key: "k", Label: "l"}, `{"key":"[REDACTED]","label":"l"}`},
		{"LogValuer", map[string]any{"v": valuer{"hidden"}}, `{"v":"[REDACTED]"}`},
		{"api key formats", []any{"sk-proj-abcdefghijklmnop1234", "ghp_abcdefghijklmnopqrstuvwxyz", "AKIAABCDEFGHIJKLMNOP"},
			`["[REDACTED]","[REDACTED]","[REDACTED]"]`},
		{"raw JSON", json.RawMessage(`{"password":"p","a":1}`), `{"a":1,"password":"[REDACTED]"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(r.Value(tc.in))
			if err != nil || string(b) != tc.want {
				t.Fatalf("got %s (%v), want %s", b, err, tc.want)
			}
		})
	}
	for in, want := range map[string]string{
		"dial postgres://u:hunter22@db:5432/x": "dial postgres://u:[REDACTED]@db:5432/x",
		"query failed: password=abc host=h":    "query failed: password=[REDACTED] host=h",
		`{"api_key": "k-123"}`:                 `{"api_key": "[REDACTED]"}`,
		"the author: Ada":                      "the author: Ada",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := redact.SecretNames(struct {
		A loginArgs   `json:"a"`
		B []loginArgs `json:"b"`
	}{}); strings.Join(got, ",") != "pin,pin" {
		t.Errorf("redact.SecretNames = %v", got)
	}
}
