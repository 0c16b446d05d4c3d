//go:build race

package validate_test

const raceEnabled = true
