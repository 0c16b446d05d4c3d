package validate_test

import "time"

type address struct {
	Street string `json:"street" validate:"required"`
	Zip    string `json:"zip" validate:"required,len=5,numeric"`
}

type filter struct {
	Field string `json:"field" validate:"required"`
	Since string `json:"since" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
}

type kitchen struct {
	City    string         `json:"city" validate:"required" description:"City name"`
	Days    int            `json:"days" validate:"omitempty,min=1,max=14"`
	Name    string         `json:"name" validate:"omitempty,min=3,max=10"`
	Code    string         `json:"code" validate:"omitempty,len=4"`
	Count   int            `json:"count" validate:"omitempty,gt=0,lt=100"`
	Ratio   float64        `json:"ratio" validate:"omitempty,gte=0.5,lte=2"`
	Tags    []string       `json:"tags" validate:"omitempty,max=3,dive,min=2"`
	Unit    string         `json:"unit" validate:"omitempty,oneof=metric imperial"`
	Email   string         `json:"email" validate:"omitempty,email"`
	URL     string         `json:"url" validate:"omitempty,url"`
	URI     string         `json:"uri" validate:"omitempty,uri"`
	ID      string         `json:"id" validate:"omitempty,uuid"`
	Host    string         `json:"host" validate:"omitempty,hostname"`
	IP      string         `json:"ip" validate:"omitempty,ip"`
	When    string         `json:"when" validate:"omitempty,datetime=2006-01-02"`
	Slug    string         `json:"slug" validate:"omitempty,alphanum"`
	Prefix  string         `json:"prefix" validate:"omitempty,startswith=ab"`
	Suffix  string         `json:"suffix" validate:"omitempty,endswith=yz"`
	Has     string         `json:"has" validate:"omitempty,contains=@"`
	NoSlash string         `json:"no_slash" validate:"omitempty,excludes=/"`
	Labels  map[string]int `json:"labels" validate:"omitempty,dive,keys,min=2,endkeys,max=5"`
	Address *address       `json:"address"`
	Filters []filter       `json:"filters" validate:"dive"`
	Token   string         `json:"token" validate:"omitempty,len=8" mcpwrap:"secret"`
	Custom  string         `json:"custom" validate:"omitempty,ulid"`
	Big     int64          `json:"big"`
	Small   int8           `json:"small"`
	CountU  uint           `json:"count_u"`
	At      *time.Time     `json:"at" validate:"omitempty,gt"`
}

type forecastArgs struct {
	City  string `json:"city" validate:"required" description:"City name, e.g. Paris"`
	Days  int    `json:"days" validate:"omitempty,min=1,max=14" description:"Days ahead"`
	Units string `json:"units" validate:"omitempty,oneof=metric imperial"`
	Key   string `json:"api_key" validate:"omitempty,len=8" mcpwrap:"secret"`
}
