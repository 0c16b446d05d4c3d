// Command mcpgobare is an mcp-go stdio server without mcpwrap, written the
// way servers are in the wild: tools as methods on a struct, a database,
// an HTTP upstream, helpers that build results and errors.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type config struct {
	APIToken   string
	DSN        string
	TokenCount int
	BaseURL    string
}

type store struct {
	db       *sql.DB
	cfg      config
	password string
	ctx      context.Context
	upstream *client.Client
	http     *http.Client
}

var errNotFound = errors.New("record not found")

func main() {
	db, err := sql.Open("postgres", os.Getenv("DSN"))
	if err != nil {
		log.Fatal(err) // clean: exit
	}
	st := &store{db: db, http: http.DefaultClient}
	s := server.NewMCPServer("records", "1.0.0")
	s.AddTool(mcp.NewTool("get_record", mcp.WithString("id", mcp.Required())), st.getRecord)
	s.AddTool(mcp.NewTool("search", mcp.WithString("q", mcp.Required())), st.search)
	s.AddTool(mcp.NewTool("export", mcp.WithString("table", mcp.Required())), st.export)
	s.AddTool(mcp.NewTool("sync_remote"), st.syncRemote)
	s.AddTool(mcp.NewTool("login", mcp.WithString("user", mcp.Required())), st.login)
	s.AddTool(mcp.NewTool("stats"), mcp.NewTypedToolHandler(st.stats))
	s.AddTool(mcp.NewTool("proxy", mcp.WithString("name", mcp.Required())), st.proxy)
	s.AddPrompt(mcp.NewPrompt("summarize"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if req.Params.Arguments["topic"] == "" {
			return nil, nil // defect: nilresult
		}
		return mcp.NewGetPromptResult("summary", nil), nil
	})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err) // clean: stdout
		os.Exit(1)                   // clean: exit
	}
}

func (s *store) getRecord(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("id")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil // clean: errtext
	}
	row, err := s.lookup(ctx, id)
	if err != nil {
		return mcp.NewToolResultText(err.Error()), nil // defect: errtext
	}
	if row == "" {
		return nil, errNotFound // defect: masked
	}
	fmt.Println("served", id) // defect: stdout
	return mcp.NewToolResultText(row), nil
}

func (s *store) lookup(ctx context.Context, id string) (string, error) {
	var v string
	rows, err := s.db.Query("select v from records where id = $1", id) // defect: ctxlost
	if err != nil {
		return "", fmt.Errorf("query %s: %w", id, err) // clean: masked
	}
	defer rows.Close()
	if err := s.db.QueryRowContext(ctx, "select 1").Scan(&v); err != nil { // clean: ctxlost
		return "", err
	}
	return v, s.audit(id)
}

func (s *store) audit(id string) error {
	if _, err := s.db.Exec("insert into audit values ($1)", id); err != nil { // defect: ctxlost
		return errors.New("audit failed") // clean: masked
	}
	slog.Info("audited", "id", id) // clean: ctxlost
	return nil
}

func (s *store) search(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q := req.GetString("q", "")
	res, err := s.fetch(q)
	if err != nil {
		r := mcp.NewToolResultText(err.Error()) // clean: errtext
		r.IsError = true
		return r, nil
	}
	if res == "" {
		return s.empty(ctx, q)
	}
	return mcp.NewToolResultStructured(map[string]string{"hits": res}, res), nil
}

// empty is the handler's answer when nothing matched: it forgets to build one.
func (s *store) empty(ctx context.Context, q string) (*mcp.CallToolResult, error) {
	if q == "*" {
		return nil, nil // defect: nilresult
	}
	return mcp.NewToolResultText("no hits for " + q), nil
}

func (s *store) fetch(q string) (string, error) {
	resp, err := http.Get(s.cfg.BaseURL + "/search?q=" + q) // defect: ctxlost
	if err != nil {
		return "", fmt.Errorf("search upstream: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("upstream said %d with token %s", resp.StatusCode, s.cfg.APIToken) // defect: secret
	}
	return string(b), nil
}

func (s *store) export(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	table, err := req.RequireString("table")
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("pg_dump", "-t", table).Output() // defect: ctxlost
	if err != nil {
		return failure("pg_dump failed for " + s.cfg.DSN), nil // defect: secret
	}
	if len(out) == 0 {
		return failure("empty table " + table), nil // clean: secret
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // defect: gopanic
		defer wg.Done()
		s.compress(out)
	}()
	wg.Wait()
	return mcp.NewToolResultText(fmt.Sprintf("%d bytes, %d tokens", len(out), s.cfg.TokenCount)), nil // clean: secret
}

// failure builds the error result every tool uses.
func failure(msg string) *mcp.CallToolResult {
	return mcp.NewToolResultError(msg)
}

// toolErr formats an error result.
func toolErr(format string, args ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf(format, args...))
}

func (s *store) compress(b []byte) {
	if len(b) > 1<<30 {
		log.Fatalf("export too large: %d", len(b)) // defect: exit
	}
}

func (s *store) syncRemote(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i := 0; i < 3; i++ {
		if err := s.ping(ctx); err == nil {
			break
		}
		time.Sleep(time.Second) // defect: ctxlost
	}
	go func() { // clean: gopanic
		defer func() {
			if v := recover(); v != nil {
				slog.Error("sync panicked", "panic", v)
			}
		}()
		s.refresh(context.Background()) // clean: ctxlost
	}()
	go s.refreshLoop() // defect: gopanic
	return mcp.NewToolResultText("synced"), nil
}

func (s *store) ping(ctx context.Context) error {
	req, err := http.NewRequest(http.MethodGet, s.cfg.BaseURL+"/ping", nil) // defect: ctxlost
	if err != nil {
		return err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (s *store) refresh(ctx context.Context) {
	tctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = s.db.PingContext(tctx) // clean: ctxlost
}

func (s *store) refreshLoop() {
	for range time.Tick(time.Minute) {
		s.refresh(context.Background())
	}
}

func (s *store) login(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	user := req.GetString("user", "")
	if user == "root" {
		return toolErr("login %s refused (tried %s)", user, s.password), nil // defect: secret
	}
	if user == "" {
		return toolErr("login %s refused", user), nil // clean: secret
	}
	if err := s.db.PingContext(ctx); err != nil {
		os.Exit(2) // defect: exit
	}
	return mcp.NewToolResultText("welcome " + user), nil
}

type statsArgs struct {
	Table string `json:"table"`
}

func (s *store) stats(ctx context.Context, req mcp.CallToolRequest, args statsArgs) (*mcp.CallToolResult, error) {
	if args.Table == "" {
		return nil, fmt.Errorf("table is required") // defect: masked
	}
	n, err := s.count(ctx, args.Table)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText(fmt.Sprint(n)), nil
}

func (s *store) count(ctx context.Context, table string) (int, error) {
	return s.countRows(ctx, table)
}

func (s *store) countRows(ctx context.Context, table string) (int, error) {
	var n int
	if err := s.db.QueryRow("select count(*) from " + table).Scan(&n); err != nil { // defect: ctxlost
		return 0, errors.New("count failed") // defect: masked
	}
	return n, nil
}

func (s *store) proxy(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	call := mcp.CallToolRequest{}
	call.Params.Name = req.GetString("name", "")
	res, err := s.upstream.CallTool(s.ctx, call) // defect: ctxlost
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err) // clean: masked
	}
	if _, err := s.upstream.ListTools(ctx, mcp.ListToolsRequest{}); err != nil { // clean: ctxlost
		return mcp.NewToolResultErrorFromErr("upstream list", err), nil
	}
	return res, nil
}
