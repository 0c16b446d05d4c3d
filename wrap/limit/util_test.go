package limit_test

import (
	"runtime"
	"strconv"
)

func itoa(i int) string { return strconv.Itoa(i) }

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
