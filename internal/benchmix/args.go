package benchmix

// Args are the arguments of the 6-field typed tool "forecast" that the
// benchmarks of validate and of both adapters bind and check.
type Args struct {
	City   string  `json:"city" validate:"required,max=64"`
	Days   int     `json:"days" validate:"required,min=1,max=14"`
	Units  string  `json:"units" validate:"required,oneof=metric imperial"`
	Lat    float64 `json:"lat" validate:"gte=-90,lte=90"`
	Lon    float64 `json:"lon" validate:"gte=-180,lte=180"`
	Hourly bool    `json:"hourly"`
}

// ArgsJSON are valid Args as a client sends them.
const ArgsJSON = `{"city":"Paris","days":3,"units":"metric","lat":48.85,"lon":2.35,"hourly":true}`
