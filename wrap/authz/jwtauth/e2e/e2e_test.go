package e2e_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/hydratest"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
)

// logs is a buffer for the JSON log lines of a server, safe for
// concurrent use.
type logs = logbuf.Buffer

// logger logs to l at INFO.
func logger(l *logs) *slog.Logger { return slog.New(slog.NewJSONHandler(l, nil)) }

// listen returns a loopback listener and the resource URI of the MCP
// endpoint it will serve.
func listen(t *testing.T) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln, "http://" + ln.Addr().String() + "/mcp"
}

// verifier is a jwtauth.Verifier of Hydra's tokens for resource.
func verifier(t *testing.T, h hydratest.Hydra, resource string, c jwtauth.Config) *jwtauth.Verifier {
	t.Helper()
	if c.Issuer == "" {
		c.Issuer = h.Issuer
	}
	c.Audience = resource
	if c.MinRefetch == 0 {
		c.MinRefetch = 100 * time.Millisecond
	}
	v, err := jwtauth.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// post sends one JSON-RPC request with token (none when "") and returns
// the answer.
func post(t *testing.T, endpoint, token, body string) (*http.Response, string) {
	t.Helper()
	req := rawrpc.Request(t, endpoint, []byte(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, b, err := rawrpc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`

// tamper flips a byte of the token's signature.
func tamper(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	sig[len(sig)/2] ^= 0x01
	return parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// kid is the key id of a token's header.
func kid(t *testing.T, token string) string {
	t.Helper()
	head, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		KID string `json:"kid"`
	}
	if err := json.Unmarshal(head, &h); err != nil {
		t.Fatal(err)
	}
	return h.KID
}

// noToken fails if a token, or its signature, is in s.
func noToken(t *testing.T, what, s string, tokens ...string) {
	t.Helper()
	for _, tok := range tokens {
		sig := tok[strings.LastIndex(tok, ".")+1:]
		if strings.Contains(s, tok) || strings.Contains(s, sig) {
			t.Errorf("%s holds a token: %.300s", what, s)
		}
	}
}

func challenge(method, name string) []string {
	if method == "tools/call" && name == "delete_repository" {
		return []string{"repo:admin"}
	}
	return nil
}

func header(resp *http.Response) string { return resp.Header.Get("WWW-Authenticate") }

func expect(t *testing.T, what string, resp *http.Response, status int, inHeader ...string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s: status %d, want %d (WWW-Authenticate %q)", what, resp.StatusCode, status, header(resp))
		return
	}
	for _, s := range inHeader {
		if !strings.Contains(header(resp), s) {
			t.Errorf("%s: WWW-Authenticate %q lacks %q", what, header(resp), s)
		}
	}
	t.Logf("%s: %d WWW-Authenticate: %s", what, resp.StatusCode, header(resp))
}

var _ = fmt.Sprint
