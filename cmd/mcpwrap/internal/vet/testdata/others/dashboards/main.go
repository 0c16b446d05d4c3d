// Command dashboards is an mcp-go server for a Grafana-like API in the
// style of mcp-grafana: a client with a config read from the environment,
// a Tool type with a Register method, helpers that format results. The
// public server has mcpwrap attached; the admin server, added later by
// another contributor, does not.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

var errStatus = errors.New("unexpected status")

type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Folder string `json:"folderTitle"`
}

// Tool pairs a definition with its handler, as mcp-grafana's MustTool does.
type Tool struct {
	Tool    mcp.Tool
	Handler server.ToolHandlerFunc
}

// Register adds the tool to s.
func (t Tool) Register(s *server.MCPServer) {
	s.AddTool(t.Tool, t.Handler)
}

type tools struct {
	c *client
}

func textf(format string, a ...any) *mcp.CallToolResult {
	return mcp.NewToolResultText(fmt.Sprintf(format, a...))
}

func respondJSON(v any) (*mcp.CallToolResult, error) {
	if v == nil {
		return nil, nil // defect: nilresult
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return mcp.NewToolResultText(string(b)), nil
}

func (t *tools) respond(list []dashboard) (*mcp.CallToolResult, error) {
	if list == nil {
		return respondJSON(nil)
	}
	return respondJSON(list)
}

func (t *tools) searchDashboards(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q := req.GetString("query", "")
	var list []dashboard
	if err := t.c.getCtx(ctx, "/api/search?query="+q, &list); err != nil {
		return mcp.NewToolResultErrorFromErr("search failed", err), nil
	}
	return t.respond(list)
}

func (t *tools) getDashboard(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	uid, err := req.RequireString("uid")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var d dashboard
	if err := t.c.get("/api/dashboards/uid/"+uid, &d); err != nil {
		return mcp.NewToolResultErrorFromErr("get dashboard", err), nil
	}
	return dashboardResult(&d)
}

// dashboardResult never answers nil.
func dashboardResult(d *dashboard) (*mcp.CallToolResult, error) {
	if d == nil {
		return mcp.NewToolResultError("dashboard not found"), nil // clean: nilresult
	}
	return mcp.NewToolResultText(d.Title), nil
}

func (t *tools) listFolders(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var list []dashboard
	if err := t.c.getCtx(ctx, "/api/search", &list); err != nil {
		return mcp.NewToolResultErrorFromErr("list folders", err), nil
	}
	res, err := respondJSON(folderNames(list))
	if res == nil && err == nil {
		return mcp.NewToolResultText("no folders"), nil // clean: nilresult
	}
	return res, err
}

func folderNames(list []dashboard) []string {
	if len(list) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range list {
		if !seen[d.Folder] {
			seen[d.Folder] = true
			out = append(out, d.Folder)
		}
	}
	return out
}

func (t *tools) connectionInfo(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return textf("grafana at %s (org %d), key %s", t.c.cfg.URL, t.c.cfg.OrgID, t.c.cfg.APIKey), nil // defect: secret
}

func (t *tools) connectionInfoRedacted(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return textf("grafana at %s, key %s", t.c.cfg.URL, redact(t.c.cfg.APIKey)), nil // clean: secret
}

func (t *tools) debugRequest(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("GET " + t.c.cfg.URL + "\nAuthorization: " + t.c.authHeader()), nil // defect: secret
}

func (t *tools) showConfig(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(fmt.Sprintf("config: %+v", t.c.cfg)), nil // defect: secret
}

func (t *tools) showSafeConfig(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	sc := safeConfig{URL: t.c.cfg.URL, AccessToken: os.Getenv("GRAFANA_ACCESS_TOKEN")}
	return mcp.NewToolResultText(fmt.Sprintf("config: %v", sc)), nil // clean: secret
}

// Admin tools: added to a server nobody attached mcpwrap to.

func (t *tools) deleteDashboard(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	uid := req.GetArguments()["uid"].(string) // defect: panic
	if !t.c.healthy() {
		return mcp.NewToolResultError("grafana is down"), nil
	}
	return mcp.NewToolResultText("deleted " + uid), nil
}

func (t *tools) folderReport(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var list []dashboard
	if err := t.c.getCtx(ctx, "/api/search", &list); err != nil {
		return mcp.NewToolResultErrorFromErr("folder report", err), nil
	}
	var byFolder map[string][]string
	for _, d := range list {
		byFolder[d.Folder] = append(byFolder[d.Folder], d.Title) // defect: panic
	}
	keys := make([]string, 0, len(byFolder))
	for k := range byFolder {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return mcp.NewToolResultText(strings.Join(keys, "\n")), nil
}

func (t *tools) panelQuery(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ref, err := req.RequireString("ref") // "<dashboard uid>/<panel id>"
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	parts := strings.Split(ref, "/")
	panel, err := strconv.Atoi(parts[1]) // defect: panic
	if err != nil {
		return mcp.NewToolResultError("panel id must be a number"), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("dashboard %s panel %d", parts[0], panel)), nil
}

func (t *tools) panelQueryChecked(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ref, err := req.RequireString("ref")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	parts := strings.SplitN(ref, "/", 2)
	if len(parts) != 2 {
		return mcp.NewToolResultError("ref must be <uid>/<panel>"), nil
	}
	return mcp.NewToolResultText("dashboard " + parts[0] + " panel " + parts[1]), nil // clean: panic
}

func (t *tools) mustHaveTitle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	title := req.GetString("title", "")
	if title == "" {
		panic("title is required") // defect: panic
	}
	return mcp.NewToolResultText(title), nil
}

// registerAdmin is how the admin tools get onto the admin server.
func registerAdmin(s *server.MCPServer, t *tools) {
	s.AddTool(mcp.NewTool("delete_dashboard", mcp.WithString("uid", mcp.Required())), t.deleteDashboard)
	s.AddTool(mcp.NewTool("folder_report"), t.folderReport)
	s.AddTool(mcp.NewTool("panel_query", mcp.WithString("ref", mcp.Required())), t.panelQuery)
	s.AddTool(mcp.NewTool("panel_query_checked", mcp.WithString("ref", mcp.Required())), t.panelQueryChecked)
}

// Public tools: the same shapes, on the server mcpwrap is attached to.

func (t *tools) archiveDashboard(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	uid := req.GetArguments()["uid"].(string) // clean: panic
	return mcp.NewToolResultText("archived " + uid), nil
}

func (t *tools) tagReport(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var byTag map[string]int
	for _, tag := range strings.Fields(req.GetString("tags", "")) {
		byTag[tag]++ // clean: panic
	}
	return mcp.NewToolResultText(fmt.Sprint(len(byTag))), nil
}

func newPublicServer(t *tools) *server.MCPServer {
	s := server.NewMCPServer("dashboards", "1.4.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("search_dashboards", mcp.WithString("query")), t.searchDashboards)
	s.AddTool(mcp.NewTool("get_dashboard", mcp.WithString("uid", mcp.Required())), t.getDashboard)
	s.AddTool(mcp.NewTool("list_folders"), t.listFolders)
	s.AddTool(mcp.NewTool("connection_info"), t.connectionInfo)
	s.AddTool(mcp.NewTool("connection_info_redacted"), t.connectionInfoRedacted)
	s.AddTool(mcp.NewTool("debug_request"), t.debugRequest)
	s.AddTool(mcp.NewTool("show_config"), t.showConfig)
	s.AddTool(mcp.NewTool("show_safe_config"), t.showSafeConfig)
	s.AddTool(mcp.NewTool("archive_dashboard", mcp.WithString("uid", mcp.Required())), t.archiveDashboard)
	Tool{Tool: mcp.NewTool("tag_report", mcp.WithString("tags")), Handler: t.tagReport}.Register(s)
	return s
}

// Experimental tools: the server recovers panics itself.

func (t *tools) experimentalStats(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := req.GetArguments()["limit"].(float64) // clean: panic
	return mcp.NewToolResultText(fmt.Sprint(n)), nil
}

func (t *tools) wrappedStats(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := req.GetArguments()["limit"].(float64) // clean: panic
	return mcp.NewToolResultText(fmt.Sprint(n)), nil
}

func main() {
	cfg := grafanaConfig{URL: os.Getenv("GRAFANA_URL"), APIKey: os.Getenv("GRAFANA_API_KEY"), OrgID: 1}
	t := &tools{c: &client{cfg: cfg, http: http.DefaultClient}}
	w := wrap.New()

	public := newPublicServer(t)
	mcpgo.Attach(public, w)

	admin := server.NewMCPServer("dashboards-admin", "1.4.0")
	registerAdmin(admin, t)
	admin.AddTool(mcp.NewTool("must_have_title", mcp.WithString("title")), t.mustHaveTitle)
	admin.AddTools(mcpgo.Tool(w, mcp.NewTool("wrapped_stats", mcp.WithNumber("limit")), t.wrappedStats))

	experimental := server.NewMCPServer("dashboards-experimental", "0.1.0", server.WithRecovery())
	experimental.AddTool(mcp.NewTool("experimental_stats", mcp.WithNumber("limit")), t.experimentalStats)

	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(public))
	mux.Handle("/admin/mcp", server.NewStreamableHTTPServer(admin))
	mux.Handle("/experimental/mcp", server.NewStreamableHTTPServer(experimental))
	if err := http.ListenAndServe("127.0.0.1:8000", mux); err != nil {
		slog.Error("serve", "err", err)
	}
}
