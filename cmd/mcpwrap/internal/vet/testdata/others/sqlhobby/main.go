// Command sqlhobby is a small mcp-go stdio server over a SQL database, in
// the style of the hobby database servers found on GitHub: a package-level
// *sql.DB, helpers that take the handle and a query string, results built
// from rows, configuration from the environment.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"fixture.example/others/store"
)

var db *sql.DB

var (
	connStr   = os.Getenv("MSSQL_CONNECTION_STRING")
	adminAuth = os.Getenv("SQLHOBBY_ADMIN_TOKEN")
	logLevel  = os.Getenv("SQLHOBBY_LOG_LEVEL")
)

func initDatabase() (*sql.DB, error) {
	d, err := sql.Open("sqlserver", connStr)
	if err != nil {
		return nil, err
	}
	// Start-up, before any tool is served: no request to cancel.
	if err := d.Ping(); err != nil { // clean: ctxlost
		d.Close()
		return nil, err
	}
	if _, err := d.Exec("CREATE TABLE IF NOT EXISTS notes (id INT, body TEXT)"); err != nil { // clean: ctxlost
		return nil, err
	}
	return d, nil
}

func executeQuery(query string) ([]map[string]any, error) {
	rows, err := db.Query(query) // defect: ctxlost
	if err != nil {
		return nil, fmt.Errorf("query failed: %w", err)
	}
	defer rows.Close()
	return scanRows(rows)
}

func executeQueryContext(ctx context.Context, query string, args ...any) ([]map[string]any, error) {
	rows, err := db.QueryContext(ctx, query, args...) // clean: ctxlost
	if err != nil {
		return nil, fmt.Errorf("query failed: %w", err)
	}
	defer rows.Close()
	return scanRows(rows)
}

func scanRows(rows *sql.Rows) ([]map[string]any, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("columns: %w", err)
	}
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			row[c] = vals[i]
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// rowsToResult turns rows into the tool's answer.
func rowsToResult(rows []map[string]any) (*mcp.CallToolResult, error) {
	if len(rows) == 0 {
		return nil, nil // defect: nilresult
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode rows: %w", err)
	}
	return mcp.NewToolResultText(string(b)), nil
}

// rowsOrEmpty is the same helper written the careful way.
func rowsOrEmpty(rows []map[string]any) (*mcp.CallToolResult, error) {
	if len(rows) == 0 {
		return mcp.NewToolResultText("no rows"), nil // clean: nilresult
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode rows: %w", err)
	}
	return mcp.NewToolResultText(string(b)), nil
}

func queryHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := request.GetArguments()
	query := args["query"].(string) // defect: panic
	if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "SELECT") {
		return mcp.NewToolResultError("only SELECT statements are allowed"), nil
	}
	rows, err := executeQuery(query)
	if err != nil {
		return mcp.NewToolResultErrorFromErr("query failed", err), nil
	}
	return rowsToResult(rows)
}

func safeQueryHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, ok := request.GetArguments()["query"].(string) // clean: panic
	if !ok || query == "" {
		return mcp.NewToolResultError("query is required"), nil
	}
	rows, err := executeQueryContext(ctx, query)
	if err != nil {
		return mcp.NewToolResultErrorFromErr("query failed", err), nil
	}
	return rowsOrEmpty(rows)
}

func countHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	table, err := request.RequireString("table")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil { // defect: ctxlost
		return mcp.NewToolResultErrorFromErr("count failed", err), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s has %d rows", table, n)), nil
}

func addNoteHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	body, err := request.RequireString("body")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if err := insertNote(body); err != nil {
		return mcp.NewToolResultErrorFromErr("insert failed", err), nil
	}
	return mcp.NewToolResultText("saved"), nil
}

func insertNote(body string) error {
	return withTx(func(tx *sql.Tx) error {
		_, err := tx.Exec("INSERT INTO notes (body) VALUES (?)", body) // defect: ctxlost
		return err
	})
}

func withTx(fn func(*sql.Tx) error) error {
	tx, err := db.Begin() // defect: ctxlost
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func statusHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := db.PingContext(ctx); err != nil { // clean: ctxlost
		return mcp.NewToolResultErrorFromErr("database unreachable", err), nil
	}
	// What a user pastes into an issue: the whole connection setup.
	return mcp.NewToolResultText(fmt.Sprintf("connected\nadmin: %s\nlog level: %s", adminAuth, logLevel)), nil // defect: secret
}

func whoamiHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	configured := adminAuth != ""
	return mcp.NewToolResultText(fmt.Sprintf("admin token configured: %t, log level %s", configured, logLevel)), nil // clean: secret
}

func tablesHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	names, err := store.TableNames(ctx, db)
	if err != nil {
		return mcp.NewToolResultErrorFromErr("list tables", err), nil
	}
	legacy, err := store.LegacyTableNames(db) // defect: ctxlost
	if err != nil {
		return mcp.NewToolResultErrorFromErr("list legacy tables", err), nil
	}
	return mcp.NewToolResultText(strings.Join(append(names, legacy...), "\n")), nil
}

func main() {
	var err error
	db, err = initDatabase()
	if err != nil {
		slog.Error("database", "err", err)
		return
	}
	defer db.Close()

	s := server.NewMCPServer("sqlhobby", "0.1.0", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("query",
		mcp.WithDescription("Run a read-only SQL query"),
		mcp.WithString("query", mcp.Required()),
	), queryHandler)
	s.AddTool(mcp.NewTool("safe_query", mcp.WithString("query", mcp.Required())), safeQueryHandler)
	s.AddTool(mcp.NewTool("count", mcp.WithString("table", mcp.Required())), countHandler)
	s.AddTool(mcp.NewTool("add_note", mcp.WithString("body", mcp.Required())), addNoteHandler)
	s.AddTool(mcp.NewTool("status"), statusHandler)
	s.AddTool(mcp.NewTool("whoami"), whoamiHandler)
	s.AddTool(mcp.NewTool("tables"), tablesHandler)

	if err := server.ServeStdio(s); err != nil {
		slog.Error("serve", "err", err)
	}
}
