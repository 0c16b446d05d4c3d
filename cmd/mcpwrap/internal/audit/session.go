package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// requestedProtocol is the version the audit asks for; servers answer with
// the one they speak.
const requestedProtocol = "2025-11-25"

// session is one initialized MCP session over a transport. It builds every
// message itself, so arguments can be anything, even invalid UTF-8.
type session struct {
	t           transport
	next        atomic.Int64
	callTimeout time.Duration

	server     serverInfo
	caps       map[string]json.RawMessage
	initialize time.Duration
}

type serverInfo struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Protocol string `json:"protocol"`
}

// request sends method with params (raw JSON text, sent as is) and waits
// for the answer, at most callTimeout.
func (s *session) request(ctx context.Context, method string, params []byte) response {
	ctx, cancel := context.WithTimeout(ctx, s.callTimeout)
	defer cancel()
	id := s.next.Add(1)
	return s.t.roundTrip(ctx, strconv.FormatInt(id, 10), requestMessage(id, method, params))
}

func requestMessage(id int64, method string, params []byte) []byte {
	msg := make([]byte, 0, len(params)+80)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"method":`...)
	msg = strconv.AppendQuote(msg, method)
	if params != nil {
		msg = append(msg, `,"params":`...)
		msg = append(msg, params...)
	}
	return append(msg, '}')
}

func (s *session) notify(ctx context.Context, method string, params []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.callTimeout)
	defer cancel()
	msg := []byte(`{"jsonrpc":"2.0","method":` + strconv.Quote(method))
	if params != nil {
		msg = append(append(msg, `,"params":`...), params...)
	}
	return s.t.notify(ctx, append(msg, '}'))
}

// rpcAnswer is the part of a JSON-RPC answer the audit reads.
type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rpcResult returns the result member of a response, or an error saying
// why there is none.
func rpcResult(r response) (json.RawMessage, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.verdict.Outcome == outbound.OutcomeHTTPError || r.verdict.Outcome == outbound.OutcomeNetworkError ||
		r.verdict.Outcome == outbound.OutcomeIncompleteStream || r.verdict.Outcome == outbound.OutcomeBodyTooLarge {
		return nil, errors.New(string(r.verdict.Outcome) + ": " + r.verdict.Detail)
	}
	var m rpcAnswer
	if err := json.Unmarshal(r.msg, &m); err != nil {
		return nil, fmt.Errorf("the answer is not JSON-RPC: %s", clip(string(r.msg), 120))
	}
	if m.Error != nil {
		return nil, fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, clip(m.Error.Message, 200))
	}
	if m.Result == nil {
		return nil, errors.New("the answer has no result")
	}
	return m.Result, nil
}

func (s *session) open(ctx context.Context) error {
	start := time.Now()
	r := s.request(ctx, "initialize", []byte(`{"protocolVersion":"`+requestedProtocol+`","capabilities":{"roots":{}},"clientInfo":{"name":"mcpwrap-audit","version":"1"}}`))
	res, err := rpcResult(r)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var init struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		return fmt.Errorf("initialize: the result is not an InitializeResult: %v", err)
	}
	s.server = serverInfo{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version, Protocol: init.ProtocolVersion}
	s.caps = init.Capabilities
	if h, ok := s.t.(*httpTransport); ok {
		h.mu.Lock()
		h.protocol = init.ProtocolVersion
		h.mu.Unlock()
	}
	if err := s.notify(ctx, "notifications/initialized", nil); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if h, ok := s.t.(*httpTransport); ok {
		h.listen()
	}
	s.initialize = time.Since(start)
	return nil
}

// tool is one entry of tools/list.
type tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations *struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
	} `json:"annotations"`
}

func (t tool) readOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// listTools follows nextCursor for at most maxPages pages.
func (s *session) listTools(ctx context.Context, maxPages int) ([]tool, error) {
	var all []tool
	cursor := ""
	for range maxPages {
		params := []byte(`{}`)
		if cursor != "" {
			params = []byte(`{"cursor":` + strconv.Quote(cursor) + `}`)
		}
		res, err := rpcResult(s.request(ctx, "tools/list", params))
		if err != nil {
			return all, fmt.Errorf("tools/list: %w", err)
		}
		var page struct {
			Tools      []tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return all, fmt.Errorf("tools/list: %v", err)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			return all, nil
		}
		cursor = page.NextCursor
	}
	return all, nil
}

// resource is one entry of resources/list.
type resource struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// prompt is one entry of prompts/list.
type prompt struct {
	Name      string `json:"name"`
	Arguments []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"arguments"`
}

// list follows nextCursor of a resources/list or prompts/list for at most
// maxPages pages and decodes the member's items into out (a pointer to a
// slice). It reports false when the server does not offer capability.
func (s *session) list(ctx context.Context, capability, method, member string, maxPages int, out any) (bool, error) {
	if _, ok := s.caps[capability]; !ok {
		return false, nil
	}
	var all []json.RawMessage
	cursor := ""
	for range maxPages {
		params := []byte(`{}`)
		if cursor != "" {
			params = []byte(`{"cursor":` + strconv.Quote(cursor) + `}`)
		}
		res, err := rpcResult(s.request(ctx, method, params))
		if err != nil {
			return true, fmt.Errorf("%s: %w", method, err)
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(res, &page); err != nil {
			return true, fmt.Errorf("%s: %v", method, err)
		}
		var items []json.RawMessage
		_ = json.Unmarshal(page[member], &items)
		all = append(all, items...)
		var next string
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" {
			break
		}
		cursor = next
	}
	b, _ := json.Marshal(all)
	return true, json.Unmarshal(b, out)
}

func (s *session) ping(ctx context.Context) error {
	_, err := rpcResult(s.request(ctx, "ping", []byte(`{}`)))
	return err
}
