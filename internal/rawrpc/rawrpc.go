// Package rawrpc posts raw JSON-RPC messages to a streamable HTTP MCP
// endpoint for tests: what a client of any SDK sends, or a hostile one.
package rawrpc

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// maxBody is as much of an answer as Do reads: more than any test's
// answer, and a bound on what a hostile exchange can make a test hold.
const maxBody = 64 << 20

// Request is a POST of body to url as a streamable HTTP client sends a
// JSON-RPC message: JSON, accepting JSON or an event stream. The caller
// adds its own headers (a bearer token, a session id).
func Request(tb testing.TB, url string, body []byte) *http.Request {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req
}

// Do sends req with http.DefaultClient and returns the response with its
// body closed and read as far as it could be: a test judges the answer,
// not how its connection ended.
func Do(req *http.Request) (*http.Response, []byte, error) {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, maxBody))
	return res, b, nil
}

// Post sends body with the bearer token (none when "") and returns the
// status and the answer; a request the server drops (a 16 MiB header) is
// status 0 with the error's text.
func Post(tb testing.TB, url, token string, body []byte) (int, string) {
	tb.Helper()
	req := Request(tb, url, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, b, err := Do(req)
	if err != nil {
		return 0, err.Error()
	}
	return res.StatusCode, string(b)
}
