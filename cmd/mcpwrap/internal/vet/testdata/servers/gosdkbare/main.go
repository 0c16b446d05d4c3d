// Command gosdkbare is a go-sdk server without mcpwrap over streamable
// HTTP, in the style of github-mcp-server: typed tools, a dependencies
// struct, handlers built by constructors, raw tools for a few.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"fixture.example/servers/upstream"
)

type deps struct {
	db          *sql.DB
	apiKey      string
	secretName  string
	bearerToken string
	client      *http.Client
}

type issueIn struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
}

type issueOut struct {
	Title string `json:"title"`
}

var errNoRepo = errors.New("repository is required")

func main() {
	d := &deps{client: http.DefaultClient}
	s := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_issue"}, d.getIssue)
	mcp.AddTool(s, &mcp.Tool{Name: "list_labels"}, listLabels(d))
	s.AddTool(&mcp.Tool{Name: "raw_search", InputSchema: map[string]any{"type": "object"}}, d.rawSearch)
	s.AddTool(&mcp.Tool{Name: "raw_delete", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.Params.Arguments) == 0 {
			return nil, nil // defect: nilresult
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "triage"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if req.Params.Arguments["repo"] == "" {
			panic("triage needs a repo") // defect: panic
		}
		return &mcp.GetPromptResult{}, nil
	})
	s.AddResource(&mcp.Resource{URI: "issues://config", Name: "config"}, d.config)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h)) // clean: exit
}

func (d *deps) getIssue(ctx context.Context, req *mcp.CallToolRequest, in issueIn) (*mcp.CallToolResult, issueOut, error) {
	if in.Repo == "" {
		return nil, issueOut{}, errNoRepo // defect: masked
	}
	title, err := d.title(ctx, in)
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, issueOut{}, nil // clean: errtext
	}
	if title == "" {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("lookup failed: %v", err)}}}, issueOut{}, nil // defect: errtext
	}
	if in.Number < 0 {
		return nil, issueOut{}, nil // clean: nilresult
	}
	return nil, issueOut{Title: title}, nil
}

func (d *deps) title(ctx context.Context, in issueIn) (string, error) {
	var t string
	err := d.db.QueryRowContext(ctx, "select title from issues where repo = $1 and n = $2", in.Repo, in.Number).Scan(&t) // clean: ctxlost
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return t, d.touch(in.Repo)
}

func (d *deps) touch(repo string) error {
	tx, err := d.db.Begin() // defect: ctxlost
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if strings.Contains(repo, "..") {
		panic("bad repo " + repo) // defect: panic
	}
	if err := d.notify(repo); err != nil {
		return err
	}
	return tx.Commit()
}

// notify is three calls below the tool handler (getIssue → title → touch → notify),
// as github-mcp-server's log download is.
func (d *deps) notify(repo string) error {
	resp, err := d.client.Post("https://hooks.example.com/"+repo, "text/plain", nil) // defect: ctxlost
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// listLabels returns the handler, as github-mcp-server's constructors do.
func listLabels(d *deps) mcp.ToolHandlerFor[issueIn, issueOut] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in issueIn) (*mcp.CallToolResult, issueOut, error) {
		if in.Repo == "" {
			return nil, issueOut{}, fmt.Errorf("repo %q: %w", in.Repo, errNoRepo) // clean: masked
		}
		labels, err := d.labels(ctx, in.Repo)
		if err != nil {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}} // clean: errtext
			res.SetError(err)
			return res, issueOut{}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(labels, ",")}}}, issueOut{}, nil
	}
}

func (d *deps) labels(ctx context.Context, repo string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/repos/"+repo+"/labels", nil) // clean: ctxlost
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.bearerToken) // clean: secret
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("labels of %s (key %s): %w", repo, d.apiKey, err) // defect: secret
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return nil, fmt.Errorf("secret %s was rejected", d.secretName) // clean: secret
	}
	return nil, nil
}

func (d *deps) rawSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	resp, err := d.client.Get("https://api.example.com/search") // defect: ctxlost
	if err != nil {
		return nil, fmt.Errorf("search: %v", err) // defect: masked
	}
	defer resp.Body.Close()
	slog.InfoContext(ctx, "searched")                                                   // clean: ctxlost
	if r, err := upstream.Get(ctx, d.client, "https://api.example.com/a"); err == nil { // defect: ctxlost
		r.Body.Close()
	}
	if r, err := upstream.Get(ctx, d.client, "https://api.example.com/b"); err == nil { // clean: ctxlost (the same site: reported once)
		r.Body.Close()
	}
	if r, err := upstream.GetContext(ctx, d.client, "https://api.example.com/c"); err == nil { // clean: ctxlost
		r.Body.Close()
	}
	return d.searchResult(ctx, resp.StatusCode)
}

func (d *deps) searchResult(ctx context.Context, status int) (*mcp.CallToolResult, error) {
	return d.render(status)
}

func (d *deps) render(status int) (*mcp.CallToolResult, error) {
	if status == http.StatusNoContent {
		return nil, nil // defect: nilresult
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: http.StatusText(status)}}}, nil
}

func (d *deps) config(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if d.db == nil {
		return nil, fmt.Errorf("no database (dsn %s)", d.bearerToken) // defect: secret
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "ok"}}}, nil
}
