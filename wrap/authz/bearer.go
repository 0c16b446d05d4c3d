package authz

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// defaultChallengeBytes is how much of a POST body RequireBearer reads, at
// most, to find the method and name a Challenge is asked about.
const defaultChallengeBytes = 4 << 20

// Bearer configures RequireBearer.
type Bearer struct {
	// ResourceMetadata is the URL of the server's protected-resource
	// metadata (RFC 9728), e.g.
	// https://mcp.example.com/.well-known/oauth-protected-resource/mcp,
	// sent in every challenge as resource_metadata so that a client finds
	// the authorization server. MCP clients need it.
	ResourceMetadata string
	// Scopes are required of every caller, whatever it calls; a token
	// without them is answered 403 insufficient_scope.
	Scopes []string
	// Challenge returns the scopes that a tools/call, resources/read or
	// prompts/get of name (a tool's or prompt's name, a resource's URI)
	// requires. When it is set, RequireBearer reads the JSON-RPC request
	// of a POST and answers a caller lacking one of them 403
	// insufficient_scope naming the scopes, the MCP specification's scope
	// challenge, so that the client can ask for a token that has them.
	// A body that is not one JSON-RPC request, or is larger than
	// MaxBodyBytes, is passed on unread by it: the policy behind still
	// decides.
	Challenge func(method, name string) []string
	// MaxBodyBytes caps what Challenge's reading of a body holds (default
	// 4 MiB).
	MaxBodyBytes int64
	// Logger, when set, receives one warning per refused token, with the
	// verifier's reason (never the token). By default refusals are not
	// logged.
	Logger *slog.Logger
}

// RequireBearer returns middleware that lets through only requests whose
// bearer token v accepts, with the Caller v returns in the request's
// context (NewContext), as the MCP authorization specification and RFC
// 6750 describe:
//
//   - no Authorization header, or one of another scheme: 401, with
//     WWW-Authenticate: Bearer resource_metadata="…" (and scope="…" when
//     o.Scopes are required);
//   - a malformed bearer token, or one v refuses (ErrInvalidToken): 401
//     with error="invalid_token" (the verifier checks expiry: jwtauth
//     does, with a clock skew);
//   - v could not decide (any other error): 503;
//   - a token without o.Scopes, or, with o.Challenge, without the scopes
//     of what the request calls: 403 with error="insufficient_scope" and
//     the scopes required.
//
// No answer holds the token, a claim or the verifier's reason. The
// middleware is safe for concurrent use if v is.
func RequireBearer(v Verifier, o Bearer) func(http.Handler) http.Handler {
	o.Scopes = slices.Clone(o.Scopes)
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = defaultChallengeBytes
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, ok := o.authenticate(w, r, v)
			if !ok {
				return
			}
			if missing := c.Missing(o.Scopes); missing != nil {
				o.log(r, "token lacks the server's scopes", errors.New(strings.Join(missing, " ")))
				o.challenge(w, http.StatusForbidden, "insufficient_scope", "the token lacks a scope this server requires")
				return
			}
			if o.challengesBody(r) && o.insufficient(w, r, c) {
				return
			}
			next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), c)))
		})
	}
}

// challengesBody reports whether the request's body is read for a
// Challenge: a POST with a body, when there is one.
func (o *Bearer) challengesBody(r *http.Request) bool {
	return o.Challenge != nil && r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody
}

// authenticate returns the caller of r's bearer token, as v verifies it;
// ok is false when it answered r instead: 401 without a valid token, 503
// when v could not decide.
func (o *Bearer) authenticate(w http.ResponseWriter, r *http.Request, v Verifier) (c Caller, ok bool) {
	token, ok, malformed := bearerToken(r.Header)
	switch {
	case malformed:
		o.refuse(w, r, errors.New("malformed Authorization header"))
		return Caller{}, false
	case !ok:
		o.challenge(w, http.StatusUnauthorized, "", "")
		return Caller{}, false
	}
	c, err := v(r.Context(), token, r)
	switch {
	case err == nil:
		return c, true
	case errors.Is(err, ErrInvalidToken):
		o.refuse(w, r, err)
	default:
		o.log(r, "token verifier failed", err)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":"temporarily_unavailable","error_description":"the token could not be verified now"}`+"\n")
	}
	return Caller{}, false
}

// bearerToken returns the token of the request's Authorization header. ok
// is false when there is none; malformed says a Bearer header was there
// but is not one token (RFC 6750's b64token), or there were several.
func bearerToken(h http.Header) (token string, ok, malformed bool) {
	vals := h.Values("Authorization")
	if len(vals) == 0 {
		return "", false, false
	}
	scheme, rest, _ := strings.Cut(vals[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", false, len(vals) > 1
	}
	if len(vals) > 1 {
		return "", false, true
	}
	token = strings.TrimLeft(rest, " ")
	if token == "" || !isB64Token(token) {
		return "", false, true
	}
	return token, true, false
}

// isB64Token reports whether s is RFC 6750's b64token:
// 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	end := len(strings.TrimRight(s, "="))
	if end == 0 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/':
		default:
			return false
		}
	}
	return true
}

// refuse answers 401 invalid_token and logs why.
func (o *Bearer) refuse(w http.ResponseWriter, r *http.Request, err error) {
	o.log(r, "bearer token refused", err)
	o.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token is malformed, expired, or not accepted by this server")
}

func (o *Bearer) log(r *http.Request, msg string, err error) {
	if o.Logger == nil || !o.Logger.Enabled(r.Context(), slog.LevelWarn) {
		return
	}
	o.Logger.LogAttrs(r.Context(), slog.LevelWarn, msg,
		slog.String("http.route", r.URL.Path), slog.String("error", err.Error()))
}

// challenge writes the WWW-Authenticate header and an OAuth error body.
// With error "" it is the bare challenge of a request that sent no token.
func (o *Bearer) challenge(w http.ResponseWriter, status int, code, description string, scopes ...string) {
	w.Header().Set("WWW-Authenticate", o.header(code, description, scopes))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if code == "" {
		_, _ = io.WriteString(w, `{"error":"unauthorized","error_description":"this server requires a bearer token"}`+"\n")
		return
	}
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}{code, description})
	_, _ = w.Write(append(body, '\n'))
}

func (o *Bearer) header(code, description string, scopes []string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	sep := ""
	param := func(k, v string) {
		b.WriteString(sep)
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(quote(v))
		sep = ", "
	}
	if code != "" {
		param("error", code)
	}
	if description != "" {
		param("error_description", description)
	}
	if all := union(o.Scopes, scopes); len(all) > 0 {
		param("scope", strings.Join(all, " "))
	}
	if o.ResourceMetadata != "" {
		param("resource_metadata", o.ResourceMetadata)
	}
	return b.String()
}

// quote is RFC 9110's quoted-string of s: a backslash before '"' and
// '\\', control characters left out.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// rpcRequest is the part of a JSON-RPC request a Challenge is asked about.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"params"`
}

// insufficient reads the JSON-RPC request of r's body (then given back to
// r, whole), and answers 403 insufficient_scope when it calls something c
// lacks the scopes of. It reports whether it answered.
func (o *Bearer) insufficient(w http.ResponseWriter, r *http.Request, c Caller) bool {
	data, ok := peekBody(r, o.MaxBodyBytes)
	if !ok {
		return false
	}
	req, name, ok := challenged(data)
	if !ok {
		return false
	}
	required := o.Challenge(req.Method, name)
	missing := c.Missing(required)
	if missing == nil {
		return false
	}
	o.log(r, "token lacks the scopes of the call", errors.New(req.Method+" "+name+" needs "+strings.Join(missing, " ")))
	w.Header().Set("WWW-Authenticate", o.header("insufficient_scope",
		"the token lacks a scope this "+req.Method+" requires", required))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusForbidden)
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{
		Code:    -32001,
		Message: "insufficient scope: " + req.Method + " of " + strconv.Quote(name) + " requires " + strings.Join(missing, " "),
		Data:    rpcErrorData{Code: "permission_denied", Scopes: missing},
	}})
	_, _ = w.Write(append(body, '\n'))
	return true
}

// peekBody reads r's body, then gives it back to r whole; ok is false
// when it is longer than max bytes or the read failed, and the handler
// behind meets the same body (and the same error).
func peekBody(r *http.Request, max int64) ([]byte, bool) {
	if r.ContentLength > max {
		return nil, false // the handler behind refuses it, unread
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(min(r.ContentLength, max) + 1))
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, max+1))
	if err != nil || int64(buf.Len()) > max {
		// What was read goes back in front of the rest.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{err}, r.Body), r.Body}
		return nil, false
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{bytes.NewReader(buf.Bytes()), r.Body}
	return buf.Bytes(), true
}

// challenged reads the JSON-RPC request of a body and the name of what it
// calls; ok is false for a request a Challenge is not asked about (a batch,
// not JSON, another method), which the handler answers.
func challenged(body []byte) (req rpcRequest, name string, ok bool) {
	data := bytes.TrimLeft(body, " \t\r\n")
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &req) != nil || req.JSONRPC != "2.0" {
		return req, "", false
	}
	switch req.Method {
	case "tools/call", "prompts/get":
		return req, req.Params.Name, true
	case "resources/read":
		return req, req.Params.URI, true
	}
	return req, "", false
}

type rpcError struct {
	Code    int          `json:"code"`
	Message string       `json:"message"`
	Data    rpcErrorData `json:"data"`
}

type rpcErrorData struct {
	Code   string   `json:"code"`
	Scopes []string `json:"scopes"`
}

// errReader gives back, once the body's bytes read before are consumed,
// the error its read met (nil: none).
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}
