package outbound

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// feedSSE splits p into lines (\n, \r\n or \r) and dispatches events on
// blank lines.
func (c *classifier) feedSSE(p []byte) {
	for len(p) > 0 && !c.decided {
		if c.skipLF {
			c.skipLF = false
			if p[0] == '\n' {
				p = p[1:]
				continue
			}
		}
		i := bytes.IndexAny(p, "\r\n")
		n := i
		if i < 0 {
			n = len(p) // the line goes on in the next write
		}
		if int64(len(c.line)+n) > c.max {
			c.decide(OutcomeBodyTooLarge, "SSE line larger than "+strconv.FormatInt(c.max, 10)+" bytes")
			return
		}
		c.line = append(c.line, p[:n]...)
		if i < 0 {
			return
		}
		c.skipLF = p[i] == '\r'
		p = p[i+1:]
		c.sseLine(c.line)
		c.line = c.line[:0]
	}
}

func (c *classifier) sseLine(line []byte) {
	if len(line) == 0 {
		c.dispatch()
		return
	}
	if line[0] == ':' {
		return
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(field) {
	case "data":
		c.addData(value)
	case "event":
		c.event = string(value)
	}
}

// addData adds a data line to the event's data, unless the event grows
// past the cap.
func (c *classifier) addData(value []byte) {
	if int64(len(c.data)+len(value)+1) > c.max {
		c.decide(OutcomeBodyTooLarge, "SSE event larger than "+strconv.FormatInt(c.max, 10)+" bytes")
		return
	}
	if c.data != nil {
		c.data = append(c.data, '\n')
	} else {
		c.data = make([]byte, 0, len(value))
	}
	c.data = append(c.data, value...)
}

func (c *classifier) dispatch() {
	data, event := c.data, c.event
	c.data, c.event = nil, ""
	if data == nil {
		return
	}
	c.v.Events++
	if event != "" && event != "message" {
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	if !json.Valid(data) {
		c.decide(OutcomeMalformedJSON, "SSE event "+strconv.Itoa(c.v.Events)+" is not JSON")
		return
	}
	if fromServer(data) {
		return // not our response
	}
	c.message(data)
}

// fromServer reports whether data, valid JSON, is a request or
// notification from the server: an object with a method.
func fromServer(data []byte) bool {
	var probe struct {
		Method json.RawMessage `json:"method"`
	}
	return firstByte(data) == '{' && json.Unmarshal(data, &probe) == nil && len(probe.Method) > 0
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
