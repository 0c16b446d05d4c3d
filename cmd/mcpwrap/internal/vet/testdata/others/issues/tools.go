package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deps is what the tool constructors close over, as in github-mcp-server.
type deps struct {
	http    *http.Client
	baseURL string
	auth    string
	cfg     *serverConfig
}

type serverConfig struct {
	Host          string
	ClientSecret  string
	ReadOnly      bool
	EnabledTools  []string
	WebhookSecret string
}

type issue struct {
	Number int      `json:"number"`
	Title  string   `json:"title"`
	Labels []string `json:"labels"`
}

// IssueRefArgs names an issue as "owner/repo#number" or by parts.
type IssueRefArgs struct {
	Repo   string `json:"repo" jsonschema:"owner/repo"`
	Number int    `json:"number"`
}

// IssueOut is the typed tools' output.
type IssueOut struct {
	Title string `json:"title"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func textResult(s string) (res *mcp.CallToolResult, err error) {
	if s == "" {
		return // defect: nilresult
	}
	return text(s), nil
}

func errorResult(format string, a ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
}

// GetIssue returns the get_issue tool and its handler.
func GetIssue(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[IssueRefArgs, IssueOut]) {
	tool := &mcp.Tool{Name: "get_issue", Description: "Get an issue"}
	return tool, func(ctx context.Context, req *mcp.CallToolRequest, in IssueRefArgs) (*mcp.CallToolResult, IssueOut, error) {
		parts := strings.Split(in.Repo, "/")
		owner, repo := parts[0], parts[1] // defect: panic
		is, err := d.fetchIssue(ctx, owner, repo, in.Number)
		if err != nil {
			return errorResult("failed to get issue: %v", err), IssueOut{}, nil
		}
		return nil, IssueOut{Title: is.Title}, nil
	}
}

// GetIssueChecked is GetIssue with its input checked.
func GetIssueChecked(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[IssueRefArgs, IssueOut]) {
	tool := &mcp.Tool{Name: "get_issue_checked"}
	return tool, func(ctx context.Context, req *mcp.CallToolRequest, in IssueRefArgs) (*mcp.CallToolResult, IssueOut, error) {
		parts := strings.Split(in.Repo, "/")
		if len(parts) < 2 {
			return errorResult("repo must be owner/repo"), IssueOut{}, nil
		}
		owner, repo := parts[0], parts[1] // clean: panic
		is, err := d.fetchIssue(ctx, owner, repo, in.Number)
		if err != nil {
			return errorResult("failed to get issue: %v", err), IssueOut{}, nil
		}
		return nil, IssueOut{Title: is.Title}, nil
	}
}

func (d *deps) fetchIssue(ctx context.Context, owner, repo string, n int) (*issue, error) {
	u := fmt.Sprintf("%s/repos/%s/%s/issues/%d", d.baseURL, url.PathEscape(owner), url.PathEscape(repo), n)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil) // clean: ctxlost
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Authorization", "token "+d.auth) // clean: secret
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	defer resp.Body.Close()
	var is issue
	if err := json.NewDecoder(resp.Body).Decode(&is); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return &is, nil
}

// rawSearch is a raw tool: arguments arrive as JSON.
func (d *deps) rawSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args map[string]any
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return errorResult("arguments: %v", err), nil
	}
	q := args["query"].(string)        // defect: panic
	state, _ := args["state"].(string) // clean: panic
	items, err := d.search(ctx, q, state)
	if err != nil {
		return errorResult("search: %v", err), nil
	}
	return d.pageResult(items)
}

func (d *deps) pageResult(items []issue) (*mcp.CallToolResult, error) {
	if len(items) == 0 {
		return nil, nil // defect: nilresult
	}
	b, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return textResult(string(b))
}

func (d *deps) search(ctx context.Context, q, state string) ([]issue, error) {
	resp, err := d.http.Post(d.baseURL+"/search/issues", "application/json", strings.NewReader(`{"q":"`+q+`","state":"`+state+`"}`)) // defect: ctxlost
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		Items []issue `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return out.Items, nil
}

type labelStats struct {
	total  int
	counts map[string]int
}

func (st *labelStats) add(labels []string) {
	for _, l := range labels {
		st.total++
		st.counts[l]++ // defect: panic
	}
}

type safeStats struct {
	counts map[string]int
}

func newSafeStats() *safeStats { return &safeStats{counts: map[string]int{}} }

func (st *safeStats) add(labels []string) {
	for _, l := range labels {
		st.counts[l]++ // clean: panic
	}
}

// LabelStats counts labels over the issues the search returns.
func LabelStats(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[IssueRefArgs, map[string]int]) {
	return &mcp.Tool{Name: "label_stats"}, func(ctx context.Context, req *mcp.CallToolRequest, in IssueRefArgs) (*mcp.CallToolResult, map[string]int, error) {
		items, err := d.search(ctx, "repo:"+in.Repo, "open")
		if err != nil {
			return errorResult("search: %v", err), nil, nil
		}
		st := &labelStats{}
		safe := newSafeStats()
		for _, is := range items {
			st.add(is.Labels)
			safe.add(is.Labels)
		}
		return nil, safe.counts, nil
	}
}

func mustRepo(repo string) string {
	if !strings.Contains(repo, "/") {
		panic(fmt.Sprintf("invalid repo %q", repo)) // defect: panic
	}
	return repo
}

// ListComments lists an issue's comments.
func ListComments(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[IssueRefArgs, []string]) {
	return &mcp.Tool{Name: "list_comments"}, func(ctx context.Context, req *mcp.CallToolRequest, in IssueRefArgs) (*mcp.CallToolResult, []string, error) {
		repo := mustRepo(in.Repo)
		body, err := d.comments(repo, in.Number)
		if err != nil {
			return errorResult("comments: %v", err), nil, nil
		}
		return nil, body, nil
	}
}

func (d *deps) comments(repo string, n int) ([]string, error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/repos/%s/issues/%d/comments", d.baseURL, repo, n), nil) // defect: ctxlost
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	defer resp.Body.Close()
	var out []string
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return out, nil
}

// GetMe tells the model who the server acts as.
func GetMe(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[struct{}, IssueOut]) {
	return &mcp.Tool{Name: "get_me"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, IssueOut, error) {
		return text(fmt.Sprintf("acting on %s with credentials %s", d.baseURL, d.auth)), IssueOut{}, nil // defect: secret
	}
}

// ServerInfo describes the server's configuration.
func ServerInfo(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[struct{}, IssueOut]) {
	return &mcp.Tool{Name: "server_info"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, IssueOut, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: describe(d.cfg)}}}, IssueOut{}, nil // defect: secret
	}
}

func describe(c *serverConfig) string {
	return fmt.Sprintf("host=%s read-only=%t tools=%s oauth=%s", c.Host, c.ReadOnly, strings.Join(c.EnabledTools, ","), c.ClientSecret)
}

// ServerInfoSafe is ServerInfo without the secrets.
func ServerInfoSafe(d *deps) (*mcp.Tool, mcp.ToolHandlerFor[struct{}, IssueOut]) {
	return &mcp.Tool{Name: "server_info_safe"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, IssueOut, error) {
		hasSecret := d.cfg.WebhookSecret != ""
		return text(fmt.Sprintf("host=%s read-only=%t webhook secret set=%t", d.cfg.Host, d.cfg.ReadOnly, hasSecret)), IssueOut{}, nil // clean: secret
	}
}

func renderPrompt(name string, vars map[string]string) (*mcp.GetPromptResult, error) {
	tmpl, ok := promptTemplates[name]
	if !ok {
		return nil, nil // defect: nilresult
	}
	for k, v := range vars {
		tmpl = strings.ReplaceAll(tmpl, "{{"+k+"}}", v)
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: tmpl}}}}, nil
}

var promptTemplates = map[string]string{"triage": "Triage the issues of {{repo}}."}

func triagePrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return renderPrompt("triage", req.Params.Arguments)
}

func unknownPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	res, err := renderPrompt(req.Params.Name, req.Params.Arguments)
	if res == nil && err == nil {
		return &mcp.GetPromptResult{Description: "no such prompt"}, nil // clean: nilresult
	}
	return res, err
}

// The shapes github-mcp-server has where an assertion holds by
// construction: a cache only this package stores into, a slice filled
// after a type switch, a second assertion after a comma-ok one.

var schemaCache sync.Map

func cachedSchema(name string) []byte {
	if v, ok := schemaCache.Load(name); ok {
		return v.([]byte) // clean: panic
	}
	b := []byte(`{"name":"` + name + `"}`)
	actual, _ := schemaCache.LoadOrStore(name, b)
	return actual.([]byte) // clean: panic
}

func optionalParam[T any](args map[string]any, p string) (T, error) {
	var zero T
	if _, ok := args[p].(T); !ok {
		return zero, fmt.Errorf("parameter %s is not of type %T", p, zero)
	}
	return args[p].(T), nil // clean: panic
}

// setAssignees is a raw tool on the stdio server.
func (d *deps) setAssignees(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args map[string]any
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return errorResult("arguments: %v", err), nil
	}
	raw, err := optionalParam[[]any](args, "assignees")
	if err != nil {
		return errorResult("%v", err), nil
	}
	logins := make([]any, 0, len(raw))
	for _, item := range raw {
		switch v := item.(type) {
		case string:
			logins = append(logins, v)
		case map[string]any:
			login, ok := v["login"].(string)
			if !ok {
				return errorResult("each assignee object needs a login"), nil
			}
			logins = append(logins, login)
		}
	}
	names := make([]string, len(logins))
	for i, l := range logins {
		names[i] = l.(string) // clean: panic
	}
	return text(strings.Join(names, ",") + string(cachedSchema("assignees"))), nil
}
