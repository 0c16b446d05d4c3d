package adaptercases

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
)

// heap is the live heap and the bytes allocated so far, after a GC.
func heap() (live, total uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.TotalAlloc
}

// LogFootprint logs, when t ends, the goroutine count and the live heap as
// they are now and as they are then, 200 ms after the last call.
func LogFootprint(t *testing.T) {
	t.Helper()
	g0, h0 := runtime.NumGoroutine(), uint64(0)
	h0, _ = heap()
	t.Cleanup(func() {
		time.Sleep(200 * time.Millisecond)
		h1, _ := heap()
		t.Logf("goroutines %d before, %d after; heap %d KiB before, %d KiB after", g0, runtime.NumGoroutine(), h0>>10, h1>>10)
	})
}

// PostHostileBodies posts, as token's caller, a tools/call of tool with
// each of args, raw, to the bare server at bareURL and to the wrapped one
// at url, and logs what each server's answers cost in allocation and what
// they said; refused says whether an answer of the wrapped server refuses
// the call (it fails the test if not).
func PostHostileBodies(t *testing.T, bareURL, url, token, tool string, args []string, refused func(status int, answer string) bool) {
	t.Helper()
	for _, side := range []string{bareURL, url} {
		_, a0 := heap()
		var answers []string
		for _, a := range args {
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + a + `}}`
			status, got := rawrpc.Post(t, side, token, []byte(body))
			if side == url && !refused(status, got) {
				t.Fatalf("the denied tool answered HTTP %d %.200s", status, got)
			}
			answers = append(answers, fmt.Sprintf("%d %.100s", status, got))
		}
		_, a1 := heap()
		t.Logf("%s: %d hostile bodies cost %d MiB of allocation; answers %q",
			map[bool]string{true: "bare", false: "wrapped"}[side == bareURL], len(args), (a1-a0)>>20, answers)
	}
}
