//go:build !race

package logline_test

const raceEnabled = false
