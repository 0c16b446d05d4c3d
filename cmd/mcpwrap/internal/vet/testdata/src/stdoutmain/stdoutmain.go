package main

import (
	"stdoutlib"

	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("x", "1")
	stdoutlib.Register(s)
	_ = server.ServeStdio(s) // want `stdout: this program serves stdio, and handlers of package stdoutlib write to stdout: .*stdoutlib.go:16 fmt.Println in tool "lib"`
}
