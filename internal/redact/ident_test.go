package redact_test

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// TestRedactionKeepsIdentifiers: a resource URI whose scheme looks like a
// credential's key ("secret://deploy-keys") was logged as
// "secret:[REDACTED]", so a denial's line no longer said which resource.
// URIs, tool and prompt names survive the redactor whole; the secrets
// beside them still do not.
func TestRedactionKeepsIdentifiers(t *testing.T) {
	r := redact.NewRedactor()
	for _, c := range []struct {
		name, in, want string
		uri            bool // through Redactor.URI, as a resource URI is logged
	}{
		{"secret scheme", "secret://deploy-keys", "secret://deploy-keys", true},
		{"token scheme", "token://ci/builds/7", "token://ci/builds/7", true},
		{"password scheme, opaque", "password:reset-form", "password:reset-form", true},
		{"auth scheme in a cause", "handler not found for resource URI 'secret://deploy-keys'", "handler not found for resource URI 'secret://deploy-keys'", false},
		{"tool name", "rotate_secret_token", "rotate_secret_token", false},
		{"prompt name", "explain-password-policy", "explain-password-policy", false},
		// Still caught.
		{"URL password", "postgres://app:hunter2-x@db/x", "postgres://app:" + redact.Redacted + "@db/x", true},
		{"secret query", "vault://kv/app?token=s3cr3t-value", "vault://kv/app?token=" + redact.Redacted, true},
		{"pair after a URI", "secret://deploy-keys failed: password=hunter2", "secret://deploy-keys failed: password=" + redact.Redacted, false},
		{"colon pair", "secret: hunter2", "secret: " + redact.Redacted, false},
		{"colon pair, no space", "secret:hunter2", "secret:" + redact.Redacted, false},
		{"bearer", "Authorization: Bearer abcdefghijklmnop", "Authorization: " + redact.Redacted, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := r.String(c.in)
			if c.uri {
				got = r.URI(c.in)
			}
			if got != c.want {
				t.Fatalf("%q became %q, want %q", c.in, got, c.want)
			}
			if strings.Contains(c.in, "hunter2") && strings.Contains(got, "hunter2") {
				t.Fatalf("a secret survived: %q", got)
			}
		})
	}
}

// TestSignedURLSignaturesAreRedacted: a pre-signed URL's signature grants
// access as a token does, and the log kept it (X-Amz-Signature=…, an Azure
// SAS's sig=…) while its credential was redacted.
func TestSignedURLSignaturesAreRedacted(t *testing.T) {
	r := redact.NewRedactor()
	for _, in := range []string{
		"GET https://bucket.s3.amazonaws.com/k?X-Amz-Credential=AKIDEXAMPLE%2F20260101&X-Amz-Signature=9f0e1d2c3b4a59687766554433221100 failed",
		"PUT https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=AbCdEf0123456789%2BqWeRtY%3D failed",
		"https://cdn.example.com/f?access_token=tok123456&signature=ZXhhbXBsZXNpZ25hdHVyZQ",
	} {
		got := r.String(in)
		for _, secret := range []string{"9f0e1d2c3b4a59687766554433221100", "AbCdEf0123456789", "ZXhhbXBsZXNpZ25hdHVyZQ", "tok123456"} {
			if strings.Contains(got, secret) {
				t.Errorf("%q became %q: the signature survived", in, got)
			}
		}
	}
}
