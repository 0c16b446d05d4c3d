package call

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/mcpwrap/mcpwrap/internal/credential"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// Caller is who makes r, as its adapter finds it; the zero Caller when the
// adapter cannot tell.
func (r *Request) Caller(ctx context.Context) authz.Caller {
	if r.Identify == nil {
		return authz.Caller{}
	}
	return r.Identify(ctx, r)
}

// SessionCaller names the caller of a request by its session and a hash
// of its Authorization header; "connection" over stdio (no header), ""
// when the request has neither. It is the loop guard's default Caller, and
// the cache's when the adapter finds no caller.
func SessionCaller(_ context.Context, session string, header http.Header) string {
	auth := header.Get("Authorization")
	switch {
	case auth != "" && session != "":
		return "session:" + session + " credential:" + credential.Hash(auth)
	case auth != "":
		return "credential:" + credential.Hash(auth)
	case session != "":
		return "session:" + session
	case header == nil:
		return "connection"
	}
	return ""
}

// TaskCaller is whom a task counts against: the caller's subject, else the
// session, else everyone without either ("").
func (r *Request) TaskCaller(ctx context.Context) string {
	if c := r.Caller(ctx); c.Subject != "" {
		return "subject " + c.Subject
	}
	if r.Session != "" {
		return "session " + r.Session
	}
	return ""
}

// CacheCaller is whose answers r shares: the process owner's over stdio
// (a local caller: its user on this host, as replicas sharing a store
// may be other users' or hosts' servers), the caller's subject and scopes
// (byScopes: its scopes alone), else SessionCaller's name.
func (r *Request) CacheCaller(ctx context.Context, byScopes bool) string {
	switch cl := r.Caller(ctx); {
	case cl.Local:
		return "local:" + cl.Subject + "@" + hostname()
	case byScopes && (cl.Subject != "" || len(cl.Scopes) > 0):
		return "scopes:" + sortedScopes(cl.Scopes)
	case cl.Subject != "":
		return "subject:" + cl.Subject + "\x00" + sortedScopes(cl.Scopes)
	}
	return SessionCaller(ctx, r.Session, r.Header)
}

// hostname is this host's name, read once.
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return h
})

func sortedScopes(s []string) string {
	s = slices.Clone(s)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), "\x00")
}
