package mcpgo

import "testing"

// The drain matches what mcp-go writes to its requests' ids; a change in
// how mcp-go writes an answer shows here and in
// TestStdioAnswersEveryRequestReadBeforeStdinCloses.
func TestAnswerKey(t *testing.T) {
	cases := []struct {
		name, msg, key string
		ok             bool
	}{
		{"result", `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, "n7", true},
		{"error", `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"x"}}`, "sa", true},
		{"result before id", `{"result":{"big":[1,2,3]},"id":1.0,"jsonrpc":"2.0"}`, "n1", true},
		{"a request of the server's", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`, "", false},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "", false},
		{"a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, "", false},
		{"not JSON", "Parse error\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, ok := answerKey([]byte(c.msg + "\n"))
			if k != c.key || ok != c.ok {
				t.Fatalf("answerKey(%s) = %q, %v; want %q, %v", c.msg, k, ok, c.key, c.ok)
			}
		})
	}
}
