package process_test

import (
	"fmt"

	"github.com/mcpwrap/mcpwrap/wrap/process"
)

// Every start-up problem is reported at once; MustPass would log them and
// exit with process.ExitConfig.
func ExampleChecks() {
	c := process.Checks{LookupEnv: func(k string) (string, bool) {
		if k == "WEATHER_TIMEOUT" {
			return "soon", true
		}
		return "", false
	}}
	c.Env("WEATHER_API_KEY")
	c.EnvDuration("WEATHER_TIMEOUT", 0)
	c.JSONFile("/does/not/exist.json", &struct{}{})
	for _, p := range c.Problems() {
		fmt.Println(p)
	}
	// Output:
	// environment variable WEATHER_API_KEY is required but not set
	// environment variable WEATHER_TIMEOUT is not a duration such as 5s or 1m30s
	// config file /does/not/exist.json: does not exist
}
