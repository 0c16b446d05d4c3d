package outbound

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// ID is a JSON-RPC request id: a number or a string, never both. 1 and "1"
// are different ids. The zero value is "no id". IDs are comparable with ==.
type ID struct {
	str bool
	v   string // decimal text for a number, the decoded text for a string
}

// NumberID returns the numeric id n.
func NumberID(n int64) ID { return ID{v: strconv.FormatInt(n, 10)} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{str: true, v: s} }

// ParseID reads an id from its JSON text: a string or a number. Numbers that
// are integers are normalised (1, 1.0 and 1e0 are the same id); null and
// anything else report false.
func ParseID(raw []byte) (ID, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ID{}, false
		}
		return StringID(s), true
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return ID{}, false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return NumberID(n), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ID{}, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return NumberID(int64(f)), true
	}
	return ID{v: string(raw)}, true
}

// IsZero reports whether id is "no id".
func (id ID) IsZero() bool { return id == ID{} }

// IsString reports whether id is a string id.
func (id ID) IsString() bool { return id.str }

// String returns the id as JSON text: 7 or "abc"; "" for no id.
func (id ID) String() string {
	if id.str {
		return strconv.Quote(id.v)
	}
	return id.v
}

// MarshalJSON writes the id as a JSON number or string (null for no id).
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	if id.str {
		return json.Marshal(id.v)
	}
	return []byte(id.v), nil
}

// UnmarshalJSON reads an id written by MarshalJSON (null gives no id).
func (id *ID) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*id = ID{}
		return nil
	}
	v, ok := ParseID(b)
	if !ok {
		return errors.New("outbound: a JSON-RPC id is a string or a number")
	}
	*id = v
	return nil
}
