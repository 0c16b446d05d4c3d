// Package store is the data layer the servers share, the way real servers
// keep their SQL out of the tool handlers.
package store

import (
	"context"
	"database/sql"
	"fmt"
)

// TableNames lists the user tables.
func TableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sys.tables") // clean: ctxlost
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("tables: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// LegacyTableNames lists the tables of the old schema.
func LegacyTableNames(db *sql.DB) ([]string, error) {
	rows, err := db.Query("SELECT name FROM legacy.tables")
	if err != nil {
		return nil, fmt.Errorf("legacy tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("legacy tables: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
