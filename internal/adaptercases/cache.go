package adaptercases

import (
	"sync"
	"sync/atomic"
	"testing"
)

// CheckHundredCallsRunOnce makes call, the same call of a cached tool
// whose handler counts its runs in runs and answers "run N", 100 times at
// once: it ran once, and every caller got "run 1". call returns the
// answer's text, or a note of what went wrong instead ("" is a wrong
// answer too).
func CheckHundredCallsRunOnce(t *testing.T, call func() (text string, ok bool), runs *atomic.Int64) {
	t.Helper()
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for range 100 {
		wg.Go(func() {
			if text, ok := call(); !ok || text != "run 1" {
				wrong.Add(1)
				t.Log(text)
			}
		})
	}
	wg.Wait()
	if runs.Load() != 1 || wrong.Load() != 0 {
		t.Fatalf("runs = %d, wrong answers = %d; want 1 run, every answer its", runs.Load(), wrong.Load())
	}
}
