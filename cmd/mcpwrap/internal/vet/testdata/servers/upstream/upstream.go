// Package upstream is the fixture servers' API client, in a package of its
// own as terraform-mcp-server's pkg/client is: its handlers pass ctx to a
// function that drops it.
package upstream

import (
	"context"
	"net/http"
)

// Get fetches url; it takes ctx and does not use it.
func Get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	return send(c, url)
}

func send(c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}

// GetContext fetches url under ctx.
func GetContext(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}
