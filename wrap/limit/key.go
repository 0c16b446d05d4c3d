package limit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Key says whose calls share a bucket. Scope names the kind of key and
// appears in the model's message ("per session"), in log lines, span events
// and metrics; ID tells keys of one scope apart and appears only in the
// store (never in telemetry).
type Key struct {
	Scope string
	ID    string
}

// The scopes of DefaultKey.
const (
	ScopeSession    = "session"
	ScopeCredential = "credential"
	ScopeAddress    = "client address"
	// ScopeShared is the one bucket of callers that carry no session, no
	// credential and no known address: they cannot escape the limit by
	// sending nothing.
	ScopeShared = "shared"
	// ScopeServer is the server-wide ceiling (WithServerLimit).
	ScopeServer = "server"
)

// KeyFunc picks the key of a call. It must be safe for concurrent use and
// cheap: it runs on every call.
type KeyFunc func(ctx context.Context, req *call.Request) Key

// DefaultKey is the key used unless WithKey says otherwise:
//
//  1. the MCP session id, when the protocol has sessions;
//  2. otherwise a SHA-256 hash of the Authorization header (the credential
//     itself is never kept, logged or sent anywhere);
//  3. otherwise the client's IP address, when the context carries it (see
//     HTTPContextFunc);
//  4. otherwise one shared bucket.
func DefaultKey(ctx context.Context, req *call.Request) Key {
	if req.Session != "" {
		return Key{Scope: ScopeSession, ID: req.Session}
	}
	if auth := req.Header.Get("Authorization"); auth != "" {
		return Key{Scope: ScopeCredential, ID: credentialHash(auth)}
	}
	if addr, ok := ctx.Value(addrKey{}).(string); ok && addr != "" {
		return Key{Scope: ScopeAddress, ID: addr}
	}
	return Key{Scope: ScopeShared}
}

// credentialHash is a stable, one-way name for a credential: the first 16
// bytes of its SHA-256, in hex. Replicas agree on it without sharing a
// secret.
func credentialHash(cred string) string {
	sum := sha256.Sum256([]byte(cred))
	return hex.EncodeToString(sum[:16])
}

type addrKey struct{}

// WithClientAddr returns ctx carrying the client's address for DefaultKey.
// A host:port keeps only the host, so a client's connections share a key.
func WithClientAddr(ctx context.Context, addr string) context.Context {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	return context.WithValue(ctx, addrKey{}, addr)
}

// HTTPContextFunc records the HTTP client's address (the connection's peer,
// not a forwarded-for header, which the client controls) for DefaultKey:
//
//	server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContextFunc)) // mcp-go
//
// Behind a proxy every caller has the proxy's address; use a session or a
// credential there, or a KeyFunc that trusts the proxy's header.
func HTTPContextFunc(ctx context.Context, r *http.Request) context.Context {
	return WithClientAddr(ctx, r.RemoteAddr)
}
