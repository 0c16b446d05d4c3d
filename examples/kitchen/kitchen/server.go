package kitchen

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
	// HeaderSession names the kitchen session a request belongs to. Without
	// it the MCP session id is used, and without that (stateless 2026-07-28
	// clients) the server-wide session "".
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

// Server is the kitchen: a real mcp-go server with an echo and an add tool,
// behind the fault injector. It is safe for concurrent use.
type Server struct {
	real    http.Handler
	mu      sync.Mutex
	def     Scenario
	session map[string]*session
	stop    chan struct{}
	once    sync.Once
}

type session struct {
	sc    Scenario
	posts int
	calls int
}

// NewMCPServer returns the kitchen's real mcp-go server, without faults:
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

// NewServer returns a kitchen whose sessions start with def.
func NewServer(def Scenario) *Server {
	s := NewMCPServer()
	if def.Name == "" {
		def.Name = Baseline
	}
	return &Server{real: server.NewStreamableHTTPServer(s), def: def, session: map[string]*session{}, stop: make(chan struct{})}
}

// Close releases requests held by uncooperative_hang.
func (k *Server) Close() { k.once.Do(func() { close(k.stop) }) }

// SetScenario sets the scenario of one session (resetting its counters), or
// with key "" the default for new sessions and the server-wide session.
func (k *Server) SetScenario(key string, sc Scenario) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if key == "" {
		k.def = sc
	}
	k.session[key] = &session{sc: sc}
}

func (k *Server) sessionKey(r *http.Request) string {
	if v := r.Header.Get(HeaderSession); v != "" {
		return v
	}
	return r.Header.Get("Mcp-Session-Id")
}

// ServeHTTP serves MCP on every path but ControlPath.
func (k *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

	key := k.sessionKey(r)
	k.mu.Lock()
	st := k.session[key]
	if st == nil {
		st = &session{sc: k.def}
		k.session[key] = st
	}
	if h := r.Header.Get(HeaderScenario); h != "" && h != st.sc.String() {
		if sc, err := ParseScenario(h); err == nil && sc.String() != st.sc.String() {
			*st = session{sc: sc}
		}
	}
	st.posts++
	toolCall := msg.Method == "tools/call" && len(msg.ID) > 0
	if toolCall {
		st.calls++
	}
	sc, posts, calls := st.sc, st.posts, st.calls
	k.mu.Unlock()

	switch sc.Name {
	case HTTPStatusSequence:
		if posts <= len(sc.Statuses) {
			if status := sc.Statuses[posts-1]; status < 200 || status > 299 {
				if sc.RetryAfter > 0 {
					w.Header().Set("Retry-After", strconv.Itoa(sc.RetryAfter))
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"note":"kitchen: injected HTTP %d on POST %d"}`, status, posts)
				return
			}
		}
		k.real.ServeHTTP(w, r)
		return
	case AuthToken:
		if toolCall && calls < sc.Until {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kitchen", error="invalid_token"`)
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		k.real.ServeHTTP(w, r)
		return
	}
	if !toolCall || (sc.Call > 0 && calls != sc.Call) {
		k.real.ServeHTTP(w, r)
		return
	}
	id := string(msg.ID)
	switch sc.Name {
	case JSONRPCError:
		k.answer(w, sc, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, sc.Code, sc.Message))
	case ToolError:
		k.answer(w, sc, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"kitchen: injected tool failure"}],"isError":true}}`)
	case InputRequired:
		k.answer(w, sc, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"input_required","inputRequests":{"approval":`+
			`{"method":"elicitation/create","params":{"mode":"form","message":"kitchen: approve?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"k1"}}`)
	case MalformedPayload:
		if sc.Variant == "html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			return
		}
		k.answer(w, sc, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"trunc`)
	case NonCompliantEnvelope:
		k.answer(w, sc, envelope(sc.Variant, id))
	case ConnectionClose:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		c, _, err := hj.Hijack()
		if err == nil {
			_ = c.Close()
		}
	case SSETruncated:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, progressEvent())
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	case UncooperativeHang:
		select {
		case <-r.Context().Done():
		case <-k.stop:
		}
	case LateResponse:
		t := time.NewTimer(sc.Delay)
		defer t.Stop()
		select {
		case <-t.C:
			k.real.ServeHTTP(w, r)
		case <-r.Context().Done():
		case <-k.stop:
		}
	case SSE:
		rec := httptest.NewRecorder()
		k.real.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			copyResponse(w, rec)
			return
		}
		sc.SSE = true
		k.answer(w, sc, strings.TrimSpace(rec.Body.String()))
	default:
		k.real.ServeHTTP(w, r)
	}
}

func copyResponse(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func envelope(variant, id string) string {
	ok := `"result":{"content":[{"type":"text","text":"ok"}]}`
	switch variant {
	case "wrong_id":
		return `{"jsonrpc":"2.0","id":424242,` + ok + `}`
	case "string_id":
		return `{"jsonrpc":"2.0","id":"` + strings.Trim(id, `"`) + `x",` + ok + `}`
	case "no_version":
		return `{"id":` + id + `,` + ok + `}`
	case "batch":
		return `[{"jsonrpc":"2.0","id":` + id + `,` + ok + `}]`
	case "content_string":
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","content":"not-an-array"}}`
	case "null_result":
		return `{"jsonrpc":"2.0","id":` + id + `,"result":null}`
	case "is_error_string":
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"isError":"false"}}`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,` + ok + `,"error":{"code":-32603,"message":"both"}}`
}

func progressEvent() string {
	return "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"kitchen\",\"progress\":1}}\n\n"
}

// answer writes one JSON-RPC message as JSON, or as SSE after a progress
// notification when sc.SSE.
func (k *Server) answer(w http.ResponseWriter, sc Scenario, msg string) {
	if !sc.SSE {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, progressEvent()+"event: message\ndata: "+msg+"\n\n")
}

func (k *Server) control(w http.ResponseWriter, r *http.Request) {
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
		sc, err := ParseScenario(text)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		k.SetScenario(r.URL.Query().Get("session"), sc)
		fmt.Fprintln(w, sc.String())
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// Running is a kitchen serving on a listener.
type Running struct {
	*Server
	// URL is the MCP endpoint, e.g. http://127.0.0.1:41234/mcp.
	URL string
	// Control is the control endpoint's URL.
	Control string
	hs      *http.Server
}

// Start serves a kitchen on addr ("127.0.0.1:0" picks a port).
func Start(addr string, def Scenario) (*Running, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	k := NewServer(def)
	hs := &http.Server{Handler: k, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	return &Running{Server: k, URL: base + "/mcp", Control: base + ControlPath, hs: hs}, nil
}

// Close stops the server.
func (r *Running) Close() error {
	r.Server.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.hs.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
