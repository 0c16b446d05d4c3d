//go:build race

package logline_test

// raceEnabled: sync.Pool drops what it is given at random under the race
// detector, so the allocation guards of pooled paths do not hold there.
const raceEnabled = true
