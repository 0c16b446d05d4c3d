package limit

import (
	"context"
	"net"
	"net/http"

	"github.com/mcpwrap/mcpwrap/internal/credential"
)

// Key says whose calls share a bucket. Scope names the kind of key and
// appears in the model's message ("per session"), in log lines, span events
// and metrics; ID tells keys of one scope apart and appears only in the
// store (never in telemetry). DefaultKey's scopes are "session",
// "credential", "client address" and "shared"; the server-wide ceiling's is
// "server".
type Key struct {
	Scope string
	ID    string
}

// The scopes of DefaultKey.
const (
	scopeSession    = "session"
	scopeCredential = "credential"
	scopeAddress    = "client address"
	// scopeShared is the one bucket of callers that carry no session, no
	// credential and no known address: they cannot escape the limit by
	// sending nothing.
	scopeShared = "shared"
	// scopeServer is the server-wide ceiling (WithServerLimit).
	scopeServer = "server"
)

// Call is what a key function (WithKey) knows of a call.
type Call struct {
	// Tool is the tool's name; a resource read is "resources/read", a
	// prompt "prompts/get " and its name.
	Tool string
	// Session is the MCP session id ("" when the protocol has none).
	Session string
	// Header holds the request's HTTP headers (nil over stdio).
	Header http.Header
}

// DefaultKey is the key used unless WithKey says otherwise:
//
//  1. the MCP session id, when the protocol has sessions;
//  2. otherwise a SHA-256 hash of the Authorization header (the credential
//     itself is never kept, logged or sent anywhere);
//  3. otherwise the client's IP address, when the context carries it (see
//     HTTPContextFunc);
//  4. otherwise one shared bucket.
func DefaultKey(ctx context.Context, c Call) Key {
	if c.Session != "" {
		return Key{Scope: scopeSession, ID: c.Session}
	}
	if auth := c.Header.Get("Authorization"); auth != "" {
		return Key{Scope: scopeCredential, ID: credential.Hash(auth)}
	}
	if addr, ok := ctx.Value(addrKey{}).(string); ok && addr != "" {
		return Key{Scope: scopeAddress, ID: addr}
	}
	return Key{Scope: scopeShared}
}

type addrKey struct{}

// HTTPContextFunc records the HTTP client's address (the connection's peer,
// not a forwarded-for header, which the client controls) for DefaultKey. A
// host:port keeps only the host, so a client's connections share a key.
// For mcp-go it is the streamable HTTP server's context function:
//
//	server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContextFunc))
//
// For go-sdk, call it in a handler in front of mcp.StreamableHTTPHandler:
//
//	next.ServeHTTP(w, r.WithContext(limit.HTTPContextFunc(r.Context(), r)))
//
// Behind a proxy every caller has the proxy's address; use a session or a
// credential there, or a key function (WithKey) that trusts the proxy's
// header.
func HTTPContextFunc(ctx context.Context, r *http.Request) context.Context {
	addr := r.RemoteAddr
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	return context.WithValue(ctx, addrKey{}, addr)
}
