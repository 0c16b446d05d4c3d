package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/jsonrpcid"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// response is what came back for one request: the JSON-RPC response
// message (cut at the read limit), how big it was, how long it took, and
// the classifier's verdict on it.
type response struct {
	msg     []byte
	size    int64
	elapsed time.Duration
	err     error // no response at all
	verdict outbound.Verdict
}

// transport carries JSON-RPC messages to one server session.
type transport interface {
	// roundTrip sends the request msg (whose id is id) and waits for the
	// response with that id until ctx ends.
	roundTrip(ctx context.Context, id string, msg []byte) response
	// notify sends a notification.
	notify(ctx context.Context, msg []byte) error
	// exited reports whether the server process has ended, and how
	// (stdio only; an HTTP server's process is not ours to see).
	exited() (bool, string)
	close()
}

var jsonHeader = http.Header{"Content-Type": []string{"application/json"}}

// ---- stdio ----

// stdio runs the server as a child process and speaks newline-delimited
// JSON-RPC on its stdin and stdout. Every byte the child writes to stdout
// passes through readLoop, so a line that is not a JSON-RPC message is
// seen and counted.
type stdio struct {
	cmd     *exec.Cmd
	stdin   *os.File
	maxRead int

	wmu sync.Mutex

	mu      sync.Mutex
	pending map[string]chan frame
	noise   noise

	done   chan struct{} // closed when the process has exited
	status string
	stderr *tail
}

// noise is what the child wrote to stdout that is not a JSON-RPC message.
type noise struct {
	Lines   int      `json:"lines"`
	Bytes   int64    `json:"bytes"`
	Samples []string `json:"samples,omitempty"`
}

// tail keeps the last bytes written to it: the child's stderr, for the
// operator's eyes only.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func startStdio(argv []string, maxRead int) (*stdio, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	s := &stdio{
		cmd: cmd, stdin: inW, maxRead: maxRead,
		pending: map[string]chan frame{},
		done:    make(chan struct{}),
		stderr:  &tail{max: 8 << 10},
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, s.stderr
	// Its own process group, so closing ends what it started too (npx
	// starts node).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	inR.Close()
	outW.Close()
	go s.readLoop(outR)
	go func() {
		err := cmd.Wait()
		st := "exited with status 0"
		if ps := cmd.ProcessState; ps != nil {
			if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				st = "was killed by " + ws.Signal().String()
			} else {
				st = "exited with status " + strconv.Itoa(ps.ExitCode())
			}
		} else if err != nil {
			st = "ended: " + err.Error()
		}
		s.mu.Lock()
		s.status = st
		s.mu.Unlock()
		close(s.done)
	}()
	return s, nil
}

func (s *stdio) readLoop(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, over, err := readLine(br, s.maxRead)
		if len(line) > 0 || over > 0 {
			s.line(line, over)
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line, keeping at most max bytes of it; over counts
// the bytes dropped past max.
func readLine(br *bufio.Reader, max int) (line []byte, over int64, err error) {
	for {
		frag, e := br.ReadSlice('\n')
		if room := max - len(line); room > 0 {
			if len(frag) <= room {
				line = append(line, frag...)
			} else {
				line = append(line, frag[:room]...)
				over += int64(len(frag) - room)
			}
		} else {
			over += int64(len(frag))
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), over, e
	}
}

// line handles one line of the child's stdout.
func (s *stdio) line(line []byte, over int64) {
	if len(bytes.TrimSpace(line)) == 0 && over == 0 {
		return
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if over > 0 {
		// Too long to judge: hand it to a waiter by its id if it starts
		// like a response, else count it as noise.
		if id, ok := leadingID(line); ok && s.deliver(id, frame{line, int64(len(line)) + over}) {
			return
		}
		s.addNoise(line, over)
		return
	}
	if firstByte(line) != '{' || json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" {
		s.addNoise(line, 0)
		return
	}
	id, hasID := jsonrpcid.Parse(m.ID)
	switch {
	case m.Method != "" && hasID:
		s.answerServerRequest(m.ID, m.Method)
	case m.Method != "":
		// A notification (a log message, a list change): fine.
	case hasID && (m.Result != nil || m.Error != nil):
		s.deliver(id, frame{line, int64(len(line))})
	default:
		s.addNoise(line, 0)
	}
}

// frame is one response line: its first bytes, and its whole size.
type frame struct {
	line []byte
	size int64
}

func (s *stdio) deliver(id string, f frame) bool {
	s.mu.Lock()
	ch, ok := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ok {
		ch <- f
	}
	return ok
}

// leadingID finds "id" in the first bytes of an over-long message.
func leadingID(line []byte) (string, bool) {
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 || i > 200 {
		return "", false
	}
	rest := bytes.TrimLeft(line[i+5:], " ")
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return "", false
	}
	return jsonrpcid.Parse(rest[:end])
}

func (s *stdio) addNoise(line []byte, over int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noise.Lines++
	s.noise.Bytes += int64(len(line)) + over + 1
	if len(s.noise.Samples) < 3 {
		s.noise.Samples = append(s.noise.Samples, clip(strings.ToValidUTF8(string(line), "?"), 120))
	}
}

// answerServerRequest answers what a server may ask a client: ping, and
// roots/list with no roots; anything else is not supported.
func (s *stdio) answerServerRequest(id json.RawMessage, method string) {
	answerServerRequest(s.write, id, method)
}

// answerServerRequest sends the reply to a server's request with send, in
// the background, giving up after 5 s.
func answerServerRequest(send func(context.Context, []byte) error, id json.RawMessage, method string) {
	reply := serverRequestReply(id, method)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = send(ctx, []byte(reply))
	}()
}

func serverRequestReply(id json.RawMessage, method string) string {
	switch method {
	case "ping":
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{}}`
	case "roots/list":
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"roots":[]}}`
	}
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32601,"message":"not supported by mcpwrap audit"}}`
}

func (s *stdio) write(ctx context.Context, msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		_ = s.stdin.SetWriteDeadline(dl)
	}
	_, err := s.stdin.Write(append(msg, '\n'))
	return err
}

func (s *stdio) roundTrip(ctx context.Context, id string, msg []byte) response {
	ch := make(chan frame, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	start := time.Now()
	if err := s.write(ctx, msg); err != nil {
		if dead, st := s.exited(); dead {
			err = errors.New("the server process " + st)
		}
		return noResponse(err, start)
	}
	select {
	case f := <-ch:
		return s.answer(f, id, start)
	case <-s.done:
		// The answer may have been read just before the exit.
		select {
		case f := <-ch:
			return s.answer(f, id, start)
		case <-time.After(50 * time.Millisecond):
		}
		_, st := s.exited()
		return noResponse(errors.New("the server process "+st+" before answering"), start)
	case <-ctx.Done():
		return noResponse(fmt.Errorf("no answer within %s", time.Since(start).Round(time.Millisecond)), start)
	}
}

func (s *stdio) answer(f frame, id string, start time.Time) response {
	r := response{msg: f.line, size: f.size, elapsed: time.Since(start)}
	if f.size > int64(len(f.line)) {
		r.verdict = outbound.Verdict{Outcome: outbound.OutcomeBodyTooLarge, Bytes: f.size,
			Detail: "message larger than " + strconv.Itoa(s.maxRead) + " bytes"}
		return r
	}
	ok := &http.Response{StatusCode: http.StatusOK, Header: jsonHeader, Body: io.NopCloser(bytes.NewReader(f.line))}
	r.verdict = outbound.Classify(ok, nil, id, outbound.WithMaxMessageBytes(int64(s.maxRead)))
	return r
}

func noResponse(err error, start time.Time) response {
	return response{err: err, elapsed: time.Since(start), verdict: outbound.Verdict{Outcome: outbound.OutcomeNetworkError, Detail: err.Error(), Cause: err}}
}

func (s *stdio) notify(ctx context.Context, msg []byte) error { return s.write(ctx, msg) }

func (s *stdio) exited() (bool, string) {
	select {
	case <-s.done:
		s.mu.Lock()
		defer s.mu.Unlock()
		return true, s.status
	default:
		return false, ""
	}
}

func (s *stdio) stdoutNoise() noise {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.noise
	n.Samples = append([]string(nil), n.Samples...)
	return n
}

// close ends the session the way a client should (stdin closed), then
// ends the process group if it does not leave within a second.
func (s *stdio) close() {
	s.stdin.Close()
	select {
	case <-s.done:
		return
	case <-time.After(time.Second):
	}
	if p := s.cmd.Process; p != nil {
		_ = syscall.Kill(-p.Pid, syscall.SIGTERM)
		select {
		case <-s.done:
			return
		case <-time.After(time.Second):
		}
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// ---- streamable HTTP ----

// httpTransport posts each message to the server's URL, as a streamable
// HTTP client does, and classifies each answer as it streams.
type httpTransport struct {
	url     string
	client  *http.Client
	headers http.Header
	maxRead int

	mu       sync.Mutex
	session  string
	protocol string
	stop     context.CancelFunc // ends the standalone GET stream
}

// listen opens the standalone GET stream, on which a server sends its own
// requests (roots/list after initialization, say), and answers them, until
// close. A server without one (405) is fine.
func (t *httpTransport) listen() {
	ctx, cancel := context.WithCancel(context.Background())
	t.mu.Lock()
	t.stop = cancel
	sid, proto := t.session, t.protocol
	t.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	if err != nil {
		cancel()
		return
	}
	for k, v := range t.headers {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if proto != "" {
		req.Header.Set("MCP-Protocol-Version", proto)
	}
	go func() {
		defer cancel()
		resp, err := t.client.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return
		}
		f := &sseFilter{request: t.answerServerRequest}
		buf := make([]byte, 32<<10)
		body := io.LimitReader(resp.Body, 64<<20)
		for {
			n, err := body.Read(buf)
			f.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
}

// guardedClient only ever dials the host of target (after resolving it, a
// loopback name must still resolve to loopback addresses), uses no proxy
// and follows no redirect: the audit's requests go nowhere else.
func guardedClient(target *url.URL) *http.Client {
	host := target.Hostname()
	port := target.Port()
	if port == "" {
		port = "80"
		if target.Scheme == "https" {
			port = "443"
		}
	}
	loopback := isLoopbackHost(host)
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			h, p, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if !strings.EqualFold(h, host) || p != port {
				return nil, fmt.Errorf("mcpwrap audit: refusing to dial %s: only %s is audited", addr, net.JoinHostPort(host, port))
			}
			ips, err := net.DefaultResolver.LookupIPAddr(ctx, h)
			if err != nil {
				return nil, err
			}
			for _, ip := range ips {
				if loopback && !ip.IP.IsLoopback() {
					continue
				}
				c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), p))
				if err == nil {
					return c, nil
				}
			}
			return nil, fmt.Errorf("mcpwrap audit: %s has no reachable address%s", h, map[bool]string{true: " on loopback", false: ""}[loopback])
		},
		MaxIdleConnsPerHost:   64,
		ResponseHeaderTimeout: 0,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("mcpwrap audit follows no redirects")
		},
	}
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (t *httpTransport) post(ctx context.Context, msg []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(msg))
	if err != nil {
		return nil, err
	}
	for k, v := range t.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t.mu.Lock()
	if t.session != "" {
		req.Header.Set("Mcp-Session-Id", t.session)
	}
	if t.protocol != "" {
		req.Header.Set("MCP-Protocol-Version", t.protocol)
	}
	t.mu.Unlock()
	return t.client.Do(req)
}

func (t *httpTransport) roundTrip(ctx context.Context, id string, msg []byte) response {
	start := time.Now()
	resp, err := t.post(ctx, msg)
	if err != nil {
		r := noResponse(err, start)
		r.verdict = outbound.Classify(nil, err, id)
		r.err = errors.New(r.verdict.Detail + " (HTTP connection dropped)")
		if ctx.Err() != nil {
			r.err = fmt.Errorf("no answer within %s", time.Since(start).Round(time.Millisecond))
		}
		return r
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.mu.Lock()
		if t.session == "" {
			t.session = sid
		}
		t.mu.Unlock()
	}
	// The classifier reads the body up to its verdict through rec, which
	// keeps what it read and answers the requests the server sends on an
	// event stream (they are not the response).
	rec := &recorder{r: io.LimitReader(resp.Body, int64(t.maxRead)*2), max: t.maxRead * 2}
	streaming := false
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
		streaming = true
		rec.events = &sseFilter{request: t.answerServerRequest}
	}
	live := *resp
	live.Body = io.NopCloser(rec)
	v := outbound.Classify(&live, nil, id, outbound.WithMaxMessageBytes(int64(t.maxRead)))
	readErr := rec.err
	body := &rec.body
	r := response{verdict: v, elapsed: time.Since(start)}
	if streaming {
		r.msg = sseMessage(body.Bytes(), id)
	} else {
		r.msg = body.Bytes()
	}
	r.size = int64(len(r.msg))
	if v.Outcome == outbound.OutcomeBodyTooLarge {
		r.size = v.Bytes
	}
	if len(r.msg) > t.maxRead {
		r.msg = r.msg[:t.maxRead]
	}
	if readErr != nil && ctx.Err() != nil {
		r.err = fmt.Errorf("no complete answer within %s", time.Since(start).Round(time.Millisecond))
	}
	return r
}

// recorder reads r for the classifier, keeps up to max bytes of what was
// read and the read error that ended it (io.EOF aside), and passes an
// event stream to events.
type recorder struct {
	r      io.Reader
	max    int
	body   bytes.Buffer
	err    error
	events *sseFilter
}

func (rc *recorder) Read(p []byte) (int, error) {
	n, err := rc.r.Read(p)
	if n > 0 {
		if rc.events != nil {
			rc.events.write(p[:n])
		}
		if rc.body.Len() < rc.max {
			rc.body.Write(p[:n])
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		rc.err = err
	}
	return n, err
}

// sseFilter reads an event stream event by event and answers the requests
// the server sends the client on it (ping, roots/list, elicitation…).
type sseFilter struct {
	request func(id json.RawMessage, method string)
	line    []byte
	data    []byte
}

func (f *sseFilter) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.line = append(f.line, p...)
			return
		}
		f.line = append(f.line, p[:i]...)
		p = p[i+1:]
		ln := bytes.TrimRight(f.line, "\r")
		f.line = f.line[:0]
		if len(ln) == 0 {
			f.event()
			continue
		}
		if v, ok := bytes.CutPrefix(ln, []byte("data:")); ok {
			if len(f.data) > 0 {
				f.data = append(f.data, '\n')
			}
			f.data = append(f.data, bytes.TrimPrefix(v, []byte(" "))...)
		}
	}
}

func (f *sseFilter) event() {
	d := f.data
	f.data = nil
	if len(d) == 0 {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(d, &m) == nil && m.Method != "" {
		if _, ok := jsonrpcid.Parse(m.ID); ok {
			f.request(m.ID, m.Method)
		}
	}
}

// answerServerRequest answers a server's request on a response stream
// with a POST of its own: ping, and roots/list with no roots.
func (t *httpTransport) answerServerRequest(id json.RawMessage, method string) {
	answerServerRequest(t.notify, id, method)
}

// sseMessage finds the data of the event carrying the response with id.
func sseMessage(stream []byte, id string) []byte {
	var data []byte
	flush := func() []byte {
		d := data
		data = nil
		if len(d) == 0 {
			return nil
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(d, &m) == nil {
			if got, ok := jsonrpcid.Parse(m.ID); ok && got == id {
				return d
			}
		}
		return nil
	}
	for _, ln := range bytes.Split(stream, []byte("\n")) {
		ln = bytes.TrimRight(ln, "\r")
		if len(ln) == 0 {
			if d := flush(); d != nil {
				return d
			}
			continue
		}
		if v, ok := bytes.CutPrefix(ln, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
		}
	}
	return flush()
}

func (t *httpTransport) notify(ctx context.Context, msg []byte) error {
	resp, err := t.post(ctx, msg)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errors.New("HTTP " + strconv.Itoa(resp.StatusCode))
	}
	return nil
}

func (t *httpTransport) exited() (bool, string) { return false, "" }

// close ends the session with DELETE, as the transport specifies.
func (t *httpTransport) close() {
	t.mu.Lock()
	sid := t.session
	if t.stop != nil {
		t.stop()
	}
	t.mu.Unlock()
	if sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil)
	if err != nil {
		return
	}
	for k, v := range t.headers {
		req.Header[k] = v
	}
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := t.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

func firstByte(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
