package mcpgo

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/stdiodrain"
)

// The defaults of HTTPLimits.
const (
	defaultMaxBodyBytes      = 4 << 20
	defaultSessionIdleTTL    = 30 * time.Minute
	defaultReadHeaderTimeout = 10 * time.Second
)

// HTTPLimits are limits of the streamable HTTP transport that no tool
// middleware can enforce: mcp-go reads a request body in full, and keeps a
// session's state until its client deletes it, before and after any
// middleware runs. Zero fields take the defaults; a negative value turns a
// limit off.
type HTTPLimits struct {
	// MaxBodyBytes caps a request body (default 4 MiB).
	// A larger body is answered with HTTP 413 (when its Content-Length says
	// so) or, when it is cut off while read, HTTP 400 with a JSON-RPC parse
	// error; either way no handler runs.
	MaxBodyBytes int64
	// SessionIdleTTL drops the state of a session that made no request for
	// this long (default 30 minutes): mcp-go's
	// WithSessionIdleTTL. With mcp-go's default session ids a client coming
	// back later still gets answers (its per-session tools and log level are
	// gone); with server.WithStateful(true) it gets HTTP 404 and
	// initializes again.
	SessionIdleTTL time.Duration
	// ReadHeaderTimeout bounds the reading of a request's headers by Serve
	// and ListenAndServe (default 10 seconds).
	ReadHeaderTimeout time.Duration
	// WriteTimeout bounds the answer to one POST, counted from its start,
	// as http.Server's WriteTimeout does (default 0: no bound; the GET
	// stream of server notifications is never bounded). See NewHTTPServer
	// for how it is kept from cutting off a timeout answer.
	WriteTimeout time.Duration
	// Auth, when set, requires a bearer token of every request but those
	// of the protected-resource metadata (and CORS preflights): see
	// HTTPAuth.
	Auth *HTTPAuth
}

// HTTPAuth is the authorization of NewHTTPServer: authz.RequireBearer
// in front of mcp-go's server, and the protected-resource metadata (RFC
// 9728) that MCP clients read, without a token, to find the authorization
// server. The tools see the caller through authz.FromContext (mcp-go runs
// a handler in a context derived from the HTTP request's).
type HTTPAuth struct {
	// Verifier checks a request's bearer token (jwtauth.Verifier.Verify,
	// or the server's own). Required.
	Verifier authz.Verifier
	// Bearer is RequireBearer's configuration. Its ResourceMetadata, when
	// empty, is the URL Metadata is served at; its MaxBodyBytes, when
	// zero, HTTPLimits.MaxBodyBytes.
	Bearer authz.Bearer
	// Metadata is the protected-resource metadata, served (mcp-go's
	// server.WithProtectedResourceMetadata) at the well-known path of
	// Metadata.Resource, this server's resource URI
	// (https://mcp.example.com/mcp: /.well-known/oauth-protected-resource/mcp).
	// BearerMethodsSupported defaults to ["header"] and ScopesSupported to
	// Bearer.Scopes. With no Resource nothing is served, and
	// Bearer.ResourceMetadata should name where the metadata is.
	Metadata server.ProtectedResourceMetadataConfig
}

func (l HTTPLimits) evaluate() HTTPLimits {
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = defaultMaxBodyBytes
	}
	if l.SessionIdleTTL == 0 {
		l.SessionIdleTTL = defaultSessionIdleTTL
	}
	if l.ReadHeaderTimeout == 0 {
		l.ReadHeaderTimeout = defaultReadHeaderTimeout
	}
	return l
}

// HTTPServer is mcp-go's streamable HTTP server for an MCP server, with
// HTTPLimits applied. It is an http.Handler (mount it at the endpoint path,
// /mcp by default) and can serve on its own. It is safe for concurrent use.
type HTTPServer struct {
	mcp     *server.StreamableHTTPServer
	handler http.Handler
	hs      *http.Server

	mu    sync.Mutex
	fresh map[net.Conn]struct{} // accepted, no byte of a request read yet
}

// freshGrace is how long Shutdown leaves a connection that has sent no
// byte of a request yet before it closes it. http.Server.Shutdown counts
// such a connection busy for five seconds, and a Go client that dialled
// one connection more than it used leaves one so: the whole of a
// FatalExit's default Timeout, which the hooks after Shutdown share.
const freshGrace = 200 * time.Millisecond

// track follows the connections that have not started a request
// (http.StateNew), for Shutdown.
func (h *HTTPServer) track(c net.Conn, st http.ConnState) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st != http.StateNew {
		delete(h.fresh, c)
		return
	}
	h.fresh[c] = struct{}{}
}

// NewHTTPServer returns the streamable HTTP server of s with the limits
// applied; opts are passed on to server.NewStreamableHTTPServer (a
// WithSessionIdleTTL among them wins over l.SessionIdleTTL).
//
// A write deadline never eats an answer. When a POST has one
// (l.WriteTimeout, or else the WriteTimeout of the http.Server that
// ServeHTTP runs in, found in the request's context), its answer is due
// a tenth of the write timeout (at most a second) before it, and the timeout layer (WithTimeout) waits no
// longer than that: a tool whose timeout is as long as the write timeout
// or longer answers with a timeout while the connection still carries it,
// instead of the client getting nothing. A tool without a timeout has no
// such layer. The timeout layer does the same for mcp-go's
// server.NewStreamableHTTPServer mounted directly in an http.Server,
// counting from the call's start (after the body is read); the rule that
// keeps every answer whole there is the server's: WriteTimeout 0, or
// longer than the longest tool timeout plus a margin.
//
// Its Shutdown has the shape of a FatalExit hook:
//
//	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{})
//	// … wrap.WithFatalExit(process.FatalExit{Hooks: []func(context.Context) error{hs.Shutdown}}) …
//	log.Fatal(hs.ListenAndServe(":8080"))
func NewHTTPServer(s *server.MCPServer, l HTTPLimits, opts ...server.StreamableHTTPOption) *HTTPServer {
	l = l.evaluate()
	if l.SessionIdleTTL > 0 {
		opts = append([]server.StreamableHTTPOption{server.WithSessionIdleTTL(l.SessionIdleTTL)}, opts...)
	}
	var metaPath string
	var bearer authz.Bearer
	if l.Auth != nil {
		bearer, metaPath, opts = l.bearer(opts)
	}
	h := &HTTPServer{mcp: server.NewStreamableHTTPServer(s, opts...)}
	h.handler = h.mcp
	if l.MaxBodyBytes > 0 {
		h.handler = limitBody(h.mcp, l.MaxBodyBytes)
	}
	if l.Auth != nil {
		h.handler = requireBearer(h.mcp, h.handler, l.Auth.Verifier, bearer, metaPath)
	}
	h.handler = adapter.WithinWriteTimeout(h.handler, max(l.WriteTimeout, 0))
	h.fresh = map[net.Conn]struct{}{}
	h.hs = &http.Server{Handler: h.handler, ReadHeaderTimeout: max(l.ReadHeaderTimeout, 0), ConnState: h.track}
	return h
}

// bearer is the bearer check of l.Auth, which must be set, with its
// defaults filled in, and the path of the protected resource metadata the
// server serves (empty if none), whose option it appends to opts.
func (l HTTPLimits) bearer(opts []server.StreamableHTTPOption) (authz.Bearer, string, []server.StreamableHTTPOption) {
	if l.Auth.Verifier == nil {
		panic("mcpgo: HTTPLimits.Auth has no Verifier")
	}
	bearer := l.Auth.Bearer
	var metaPath string
	if md := l.Auth.Metadata; md.Resource != "" {
		if md.BearerMethodsSupported == nil {
			md.BearerMethodsSupported = []string{"header"}
		}
		if md.ScopesSupported == nil {
			md.ScopesSupported = bearer.Scopes
		}
		opts = append(opts, server.WithProtectedResourceMetadata(md))
		metaPath = server.ProtectedResourceMetadataPath(md.Resource)
		if bearer.ResourceMetadata == "" {
			bearer.ResourceMetadata = metadataURL(md.Resource, metaPath)
		}
	}
	if bearer.MaxBodyBytes == 0 && l.MaxBodyBytes > 0 {
		bearer.MaxBodyBytes = l.MaxBodyBytes
	}
	return bearer, metaPath, opts
}

// ServeHTTP serves one request.
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.handler.ServeHTTP(w, r) }

// Serve serves MCP on every path of ln until Shutdown. Like
// http.Server.Serve, it returns http.ErrServerClosed after Shutdown.
func (h *HTTPServer) Serve(ln net.Listener) error { return h.hs.Serve(ln) }

// ListenAndServe listens on addr and serves as Serve does.
func (h *HTTPServer) ListenAndServe(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return h.Serve(ln)
}

// Shutdown stops accepting connections, waits (up to ctx) for the answers
// being written, then closes the sessions and stops the idle-session
// sweeper. A connection that has sent no byte of a request within 200ms of
// the start of Shutdown is closed (http.Server.Shutdown alone would wait
// five seconds for it): nothing was asked on it.
func (h *HTTPServer) Shutdown(ctx context.Context) error {
	t := time.AfterFunc(freshGrace, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for c := range h.fresh {
			_ = c.Close()
			delete(h.fresh, c)
		}
	})
	defer t.Stop()
	err := h.hs.Shutdown(ctx)
	return errors.Join(err, h.mcp.Shutdown(ctx))
}

// stdioQueueSize is the queue of tool calls ServeStdio gives mcp-go's
// workers, mcp-go's maximum: past a full queue mcp-go serves a call on its
// read loop and reads no more of stdin until that call ends, so the calls
// behind it go untimed. A queued call is timed, so a long queue costs a
// timeout answer, not a hang.
const stdioQueueSize = 10000

// ServeStdio serves s over stdin and stdout as server.ServeStdio does (opts
// are passed on), with three differences. It times a tool call from when
// it reads it: mcp-go queues tool calls for a few workers
// (server.WithWorkerPoolSize, five by default), and a call that waited
// there past its timeout (wrap.WithTimeout) is answered with a timeout,
// with its log line, without running; the queue holds 10 000 calls, not
// mcp-go's 100 (server.WithQueueSize in opts sets another). When the
// client closes stdin, it answers every request read before, waiting for
// them at most ten seconds, where mcp-go cancels them and may leave queued
// tool calls unanswered. And it writes out the lines logger holds before it
// returns (observe.FlushLogger): when the client closes stdin, and on
// SIGTERM or SIGINT, which it turns into a return, as server.ServeStdio
// does. Give it the logger given to WithLogger; main returns after it:
//
//	logger := observe.NewLogger(observe.WithLogBuffer())
//	s := server.NewMCPServer("weather", "1.0.0")
//	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger)))
//	if err := mcpgo.ServeStdio(s, logger); err != nil {
//		logger.Error("stdio", "error", err)
//	}
func ServeStdio(s *server.MCPServer, logger *slog.Logger, opts ...server.StdioOption) error {
	ss := server.NewStdioServer(s)
	server.WithQueueSize(stdioQueueSize)(ss) // opts may set another
	for _, o := range opts {
		o(ss)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// Over stdio the caller is whoever started the process: an
	// authorization policy grants it Policy.Local.
	ctx = authz.NewContext(ctx, policy.ProcessOwner())
	d := stdiodrain.New(ctx, os.Stdin, os.Stdout)
	err := ss.Listen(stdiodrain.WithDrain(ctx, d), d, d)
	if errors.Is(err, context.Canceled) {
		err = nil // a signal: the stop asked for
	}
	return errors.Join(err, obs.FlushLogger(logger))
}

// requireBearer puts authz.RequireBearer in front of next, but for the
// metadata (at metaPath) and CORS preflights, which mcp go answers
// without running anything.
func requireBearer(mcp, next http.Handler, v authz.Verifier, b authz.Bearer, metaPath string) http.Handler {
	guarded := authz.RequireBearer(v, b)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions || (metaPath != "" && r.URL.Path == metaPath) {
			mcp.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// metadataURL is the URL of the metadata of resource, served at path.
func metadataURL(resource, path string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host + path
}

// limitBody answers a body announced larger than n with 413, and cuts off
// one that grows past n while read.
func limitBody(next http.Handler, n int64) http.Handler {
	tooLarge := []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body larger than ` +
		strconv.FormatInt(n, 10) + ` bytes"}}` + "\n")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = w.Write(tooLarge)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		next.ServeHTTP(w, r)
	})
}
