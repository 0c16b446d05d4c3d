package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// grafanaConfig is read from the environment once, the way mcp-grafana does.
type grafanaConfig struct {
	URL    string
	APIKey string
	OrgID  int
}

// safeConfig prints itself without its key.
type safeConfig struct {
	URL         string
	AccessToken string
}

func (c safeConfig) String() string { return "safeConfig{URL: " + c.URL + ", AccessToken: <redacted>}" }

type client struct {
	cfg  grafanaConfig
	http *http.Client
}

func (c *client) authHeader() string {
	return "Bearer " + c.cfg.APIKey
}

// get is the old helper, still used by half the tools.
func (c *client) get(path string, out any) error {
	req, err := http.NewRequest(http.MethodGet, strings.TrimRight(c.cfg.URL, "/")+path, nil) // defect: ctxlost
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	return c.do(req, out)
}

// getCtx is the new helper.
func (c *client) getCtx(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.cfg.URL, "/")+path, nil) // clean: ctxlost
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	return c.do(req, out)
}

func (c *client) do(req *http.Request, out any) error {
	req.Header.Set("Authorization", c.authHeader())
	resp, err := c.http.Do(req) // clean: ctxlost
	if err != nil {
		return fmt.Errorf("grafana: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("grafana: %s: %s: %w", resp.Status, b, errStatus)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func (c *client) healthy() bool {
	resp, err := http.Get(c.cfg.URL + "/api/health") // defect: ctxlost
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func redact(s string) string {
	if len(s) <= 4 {
		return "****"
	}
	return s[:2] + strings.Repeat("*", len(s)-2)
}
