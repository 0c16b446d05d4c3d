package outboundtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Headers a client sends to pick its session and scenario.
const (
	// HeaderSession names the session a request belongs to. Without it the
	// MCP session id is used, and without that (before initialize, or a
	// stateless 2026-07-28 client) the server-wide session "". A client that
	// names no session keeps its counts across initialize: its MCP session
	// carries on from the server-wide one, which starts afresh.
	HeaderSession = "Kitchen-Session"
	// HeaderScenario switches the request's session to a scenario (text
	// form); a change resets the session's counters.
	HeaderScenario = "Kitchen-Scenario"
	// ControlPath is the control endpoint: GET shows the scenarios, POST
	// with ?scenario=…[&session=…] (or the scenario as the body) sets one;
	// without a session it sets the default for new sessions and resets
	// the server-wide session.
	ControlPath = "/kitchen/scenario"
)

// Handler is the fault injector: a real mcp-go server with an echo and an
// add tool, behind an http.Handler that answers per scenario. It is safe for
// concurrent use.
type Handler struct {
	real    http.Handler
	mu      sync.Mutex
	def     scenario
	session map[string]*session
	stop    chan struct{}
	once    sync.Once
}

type session struct {
	sc    scenario
	posts int
	calls int
}

// NewMCPServer returns the real mcp-go server behind the Handler, without faults:
// tools echo (read-only, idempotent) and add (read-only).
func NewMCPServer() *server.MCPServer {
	s := server.NewMCPServer("kitchen", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes its text argument."), mcp.WithString("text"),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithIdempotentHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "echo")), nil
		})
	s.AddTool(mcp.NewTool("add", mcp.WithDescription("Adds a and b."), mcp.WithNumber("a"), mcp.WithNumber("b"),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strconv.FormatFloat(req.GetFloat("a", 0)+req.GetFloat("b", 0), 'g', -1, 64)), nil
		})
	return s
}

// NewHandler returns a fault injector whose sessions start with the given
// scenario, in its text form ("" is baseline); an unknown scenario or
// parameter is an error. Close it when done.
func NewHandler(scenario string) (*Handler, error) {
	def, err := parseScenario(scenario)
	if err != nil {
		return nil, err
	}
	return &Handler{real: server.NewStreamableHTTPServer(NewMCPServer()), def: def, session: map[string]*session{}, stop: make(chan struct{})}, nil
}

// Close releases requests held by uncooperative_hang.
func (k *Handler) Close() { k.once.Do(func() { close(k.stop) }) }

// SetScenario sets the scenario of one session, in its text form, and
// resets the session's counters; with session "" it sets the default for
// new sessions and resets the server-wide session. An unknown scenario or
// parameter is an error, and changes nothing.
func (k *Handler) SetScenario(session, scenario string) error {
	sc, err := parseScenario(scenario)
	if err != nil {
		return err
	}
	k.set(session, sc)
	return nil
}

func (k *Handler) set(key string, sc scenario) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if key == "" {
		k.def = sc
	}
	k.session[key] = &session{sc: sc}
}

// sessionKey names the session of r: its Kitchen-Session header, else its
// MCP session id, else "" (the server-wide session).
func sessionKey(r *http.Request) string {
	if v := r.Header.Get(HeaderSession); v != "" {
		return v
	}
	return r.Header.Get("Mcp-Session-Id")
}

// post is what the Handler knows of one POST when it decides what to do.
type post struct {
	sc       scenario
	n        int // the session's POSTs so far, this one included
	calls    int // the session's tools/call requests so far
	toolCall bool
	id       string // the JSON-RPC id as sent
}

// ServeHTTP serves MCP on every path but ControlPath.
func (k *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == ControlPath {
		k.control(w, r)
		return
	}
	if r.Method != http.MethodPost {
		k.real.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &msg)
	key := sessionKey(r)
	p := k.count(key, r.Header.Get(HeaderScenario), msg.Method == "tools/call" && len(msg.ID) > 0)
	p.id = string(msg.ID)
	if key == "" && msg.Method == "initialize" {
		// A client that names no session counts in the server-wide session
		// until initialize gives it an MCP session id; its session then
		// carries on from there, so a status sequence is not replayed from
		// the start on its next POST, and the next such client starts afresh.
		w = &adoptWriter{ResponseWriter: w, adopt: k.adopt}
	}
	if k.preempt(w, r, p) {
		return
	}
	if !p.toolCall || (p.sc.Call > 0 && p.calls != p.sc.Call) {
		k.real.ServeHTTP(w, r)
		return
	}
	k.fault(w, r, p)
}

// count records one POST in the session key, switching its scenario first
// when the request asks for another one.
func (k *Handler) count(key, text string, toolCall bool) post {
	k.mu.Lock()
	defer k.mu.Unlock()
	st := k.session[key]
	if st == nil {
		st = &session{sc: k.def}
		k.session[key] = st
	}
	if text != "" && text != st.sc.String() {
		if sc, err := parseScenario(text); err == nil && sc.String() != st.sc.String() {
			*st = session{sc: sc}
		}
	}
	st.posts++
	if toolCall {
		st.calls++
	}
	return post{sc: st.sc, n: st.posts, calls: st.calls, toolCall: toolCall}
}

// adopt gives the MCP session sid the server-wide session's state, and
// starts the server-wide session afresh under the same scenario.
func (k *Handler) adopt(sid string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	st := k.session[""]
	if st == nil || k.session[sid] != nil {
		return
	}
	carried := *st
	k.session[sid] = &carried
	*st = session{sc: st.sc}
}

// adoptWriter calls adopt with the Mcp-Session-Id an initialize response
// carries, just before the response is sent.
type adoptWriter struct {
	http.ResponseWriter
	adopt func(sid string)
	done  bool
}

func (a *adoptWriter) check() {
	if a.done {
		return
	}
	a.done = true
	if sid := a.Header().Get("Mcp-Session-Id"); sid != "" {
		a.adopt(sid)
	}
}

func (a *adoptWriter) WriteHeader(code int) { a.check(); a.ResponseWriter.WriteHeader(code) }

func (a *adoptWriter) Write(p []byte) (int, error) { a.check(); return a.ResponseWriter.Write(p) }

func (a *adoptWriter) Flush() {
	a.check()
	if f, ok := a.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (a *adoptWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// preempt handles the scenarios that act on any POST (a status sequence,
// an expired token) and reports whether it answered.
func (k *Handler) preempt(w http.ResponseWriter, r *http.Request, p post) bool {
	switch p.sc.Name {
	case httpStatusSequence:
		if p.n <= len(p.sc.Statuses) {
			if status := p.sc.Statuses[p.n-1]; status < 200 || status > 299 {
				if p.sc.RetryAfter > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(p.sc.RetryAfter))
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"note":"kitchen: injected HTTP %d on POST %d"}`, status, p.n)
				return true
			}
		}
	case authToken:
		if p.toolCall && p.calls < p.sc.Until {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kitchen", error="invalid_token"`)
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return true
		}
	default:
		return false
	}
	k.real.ServeHTTP(w, r)
	return true
}

// fault answers a tools/call the way the scenario's broken server would.
func (k *Handler) fault(w http.ResponseWriter, r *http.Request, p post) {
	sc, id := p.sc, p.id
	switch sc.Name {
	case jsonrpcError:
		k.answer(w, sc, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, sc.Code, sc.Message))
	case toolError:
		k.answer(w, sc, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"kitchen: injected tool failure"}],"isError":true}}`)
	case inputRequired:
		k.answer(w, sc, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"input_required","inputRequests":{"approval":`+
			`{"method":"elicitation/create","params":{"mode":"form","message":"kitchen: approve?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"k1"}}`)
	case malformedPayload:
		if sc.Variant == "html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			return
		}
		k.answer(w, sc, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"trunc`)
	case nonCompliantEnvelope:
		k.answer(w, sc, envelope(sc.Variant, id))
	case connectionClose:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		c, _, err := hj.Hijack()
		if err == nil {
			_ = c.Close()
		}
	case sseTruncated:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, progressEvent())
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	case uncooperativeHang, lateResponse:
		k.hold(w, r, sc)
	case sseStream:
		k.reframe(w, r, sc)
	default:
		k.real.ServeHTTP(w, r)
	}
}

// hold never answers (uncooperative_hang) or answers after sc.Delay
// (late_response), until the client gives up or the Handler closes.
func (k *Handler) hold(w http.ResponseWriter, r *http.Request, sc scenario) {
	var late <-chan time.Time
	if sc.Name == lateResponse {
		t := time.NewTimer(sc.Delay)
		defer t.Stop()
		late = t.C
	}
	select {
	case <-late:
		k.real.ServeHTTP(w, r)
	case <-r.Context().Done():
	case <-k.stop:
	}
}

// reframe sends the real server's JSON answer as an event stream.
func (k *Handler) reframe(w http.ResponseWriter, r *http.Request, sc scenario) {
	rec := httptest.NewRecorder()
	k.real.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		copyResponse(w, rec)
		return
	}
	sc.SSE = true
	k.answer(w, sc, strings.TrimSpace(rec.Body.String()))
}

func copyResponse(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func envelope(variant, id string) string {
	e, ok := envelopes[variant]
	if !ok {
		e = `{"jsonrpc":"2.0","id":{id},{ok},"error":{"code":-32603,"message":"both"}}`
	}
	return strings.NewReplacer("{id}", id, "{bare_id}", strings.Trim(id, `"`),
		"{ok}", `"result":{"content":[{"type":"text","text":"ok"}]}`).Replace(e)
}

// envelopes are the non_compliant_envelope variants: {id} stands for the
// request's id, {bare_id} for it without quotes, {ok} for a valid result
// member. Any other variant has both result and error.
var envelopes = map[string]string{
	"wrong_id":        `{"jsonrpc":"2.0","id":424242,{ok}}`,
	"string_id":       `{"jsonrpc":"2.0","id":"{bare_id}x",{ok}}`,
	"no_version":      `{"id":{id},{ok}}`,
	"batch":           `[{"jsonrpc":"2.0","id":{id},{ok}}]`,
	"content_string":  `{"jsonrpc":"2.0","id":{id},"result":{"resultType":"complete","content":"not-an-array"}}`,
	"null_result":     `{"jsonrpc":"2.0","id":{id},"result":null}`,
	"is_error_string": `{"jsonrpc":"2.0","id":{id},"result":{"content":[],"isError":"false"}}`,
}

func progressEvent() string {
	return "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"kitchen\",\"progress\":1}}\n\n"
}

// strayResponse is a response to a request the client never sent.
const strayResponse = `{"jsonrpc":"2.0","id":"kitchen-stray","result":{"content":[{"type":"text","text":"kitchen: a response to another request"}]}}`

// answer writes one JSON-RPC message as JSON, or as SSE after a progress
// notification when sc.SSE (and after a stray response when sc.Stray).
func (k *Handler) answer(w http.ResponseWriter, sc scenario, msg string) {
	if !sc.SSE && !sc.Stray {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, msg)
		return
	}
	events := progressEvent()
	if sc.Stray {
		events += "event: message\ndata: " + strayResponse + "\n\n"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, events+"event: message\ndata: "+msg+"\n\n")
}

func (k *Handler) control(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		k.mu.Lock()
		out := map[string]string{"default": k.def.String()}
		for key, st := range k.session {
			out["session:"+key] = st.sc.String()
		}
		k.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	case http.MethodPost:
		text := r.URL.Query().Get("scenario")
		if text == "" {
			b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
			text = strings.TrimSpace(string(b))
		}
		sc, err := parseScenario(text)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		k.set(r.URL.Query().Get("session"), sc)
		fmt.Fprintln(w, sc.String())
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// Server is a Handler serving on a loopback port, as httptest.Server
// serves a handler.
type Server struct {
	*Handler
	// URL is the MCP endpoint, e.g. http://127.0.0.1:41234/mcp.
	URL string
	// Control is the control endpoint's URL.
	Control string
	hs      *http.Server
}

// NewServer serves a Handler whose sessions start with the given scenario
// (text form, "" is baseline) on 127.0.0.1 and a free port, as
// httptest.NewServer does. An unknown scenario is a mistake in the test, and
// so is a machine that cannot listen on loopback: both panic. Close it when
// done.
func NewServer(scenario string) *Server {
	k, err := NewHandler(scenario)
	if err != nil {
		panic("outboundtest: " + err.Error())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("outboundtest: " + err.Error())
	}
	hs := &http.Server{Handler: k, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	return &Server{Handler: k, URL: base + "/mcp", Control: base + ControlPath, hs: hs}
}

// Close releases held requests and stops the server.
func (s *Server) Close() error {
	s.Handler.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.hs.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
