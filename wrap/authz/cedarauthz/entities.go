package cedarauthz

import (
	"bytes"
	"encoding/json"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/cedar-policy/cedar-go"
	"github.com/cedar-policy/cedar-go/types"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// The entity types a policy names (doc.go has the whole mapping).
const (
	callerType   = types.EntityType("MCP::Caller")
	actionType   = types.EntityType("MCP::Action")
	toolType     = types.EntityType("MCP::Tool")
	promptType   = types.EntityType("MCP::Prompt")
	resourceType = types.EntityType("MCP::Resource")
)

// The bounds on a call's arguments: beyond them the resource has no
// arguments attribute, context.argumentsSkipped is true, and a refusal
// says why.
const (
	maxArgumentBytes = 64 << 10
	maxDepth         = 32
)

// Why arguments were left out of the request.
const (
	skippedSize    = "they are larger than 64 KiB"
	skippedDepth   = "they are nested deeper than 32 levels"
	skippedInvalid = "they are not a JSON object"
)

// The actions, the MCP methods they stand for, and the word a refusal
// names the kind of resource with.
var actions = map[string]struct {
	uid  types.EntityUID
	typ  types.EntityType
	noun string
}{
	"tools/call":     {types.NewEntityUID(actionType, "call"), toolType, "tool"},
	"resources/read": {types.NewEntityUID(actionType, "read"), resourceType, "resource"},
	"prompts/get":    {types.NewEntityUID(actionType, "get"), promptType, "prompt"},
}

// entities is the entity store of one request: its principal and its
// resource, which are all a request's policies can look up.
type entities struct {
	principal, resource types.Entity
}

func (e *entities) Get(uid types.EntityUID) (types.Entity, bool) {
	switch uid {
	case e.principal.UID:
		return e.principal, true
	case e.resource.UID:
		return e.resource, true
	}
	return types.Entity{}, false
}

// principalOf is c as an entity: MCP::Caller::"<Subject>" with scopes,
// claims and local.
func principalOf(c authz.Caller) types.Entity {
	scopes := make([]types.Value, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = types.String(s)
	}
	claims := emptyRecord
	if len(c.Claims) > 0 {
		m := make(types.RecordMap, len(c.Claims))
		for k, v := range c.Claims {
			if cv, res := valueOf(v, 1); res == converted {
				m[types.String(k)] = cv
			}
		}
		claims = types.NewRecord(m)
	}
	return types.Entity{
		UID: types.NewEntityUID(callerType, types.String(c.Subject)),
		Attributes: types.NewRecord(types.RecordMap{
			"scopes": types.NewSet(scopes...),
			"claims": claims,
			"local":  types.Boolean(c.Local),
		}),
	}
}

// resourceOf is the entity r names, of type typ, with its annotations (a
// tool's) and its arguments; skipped says why arguments that r has were
// left out ("" when they were not).
func resourceOf(typ types.EntityType, r authz.Request) (e types.Entity, skipped string) {
	uid := types.NewEntityUID(typ, types.String(r.Name))
	if len(r.Arguments) == 0 || bytes.Equal(bytes.TrimSpace(r.Arguments), []byte("null")) {
		return types.Entity{UID: uid, Attributes: bareRecord(typ, r.Annotations)}, ""
	}
	args, skipped := argumentsOf(r.Arguments)
	if skipped != "" {
		return types.Entity{UID: uid, Attributes: bareRecord(typ, r.Annotations)}, skipped
	}
	attrs := annotationAttributes(typ, r.Annotations)
	attrs["arguments"] = args
	return types.Entity{UID: uid, Attributes: types.NewRecord(attrs)}, ""
}

// annotationAttributes are a resource's attributes but its arguments: a
// tool's annotations, with MCP's defaults when the server does not know
// them; none for a resource or a prompt.
func annotationAttributes(typ types.EntityType, known authz.Annotations) types.RecordMap {
	if typ != toolType {
		return types.RecordMap{}
	}
	a := known
	if !a.Known {
		a = authz.Annotations{Destructive: true, OpenWorld: true}
	}
	return types.RecordMap{
		"annotated":   types.Boolean(known.Known),
		"readOnly":    types.Boolean(a.ReadOnly),
		"destructive": types.Boolean(a.Destructive && !a.ReadOnly),
		"idempotent":  types.Boolean(a.Idempotent),
		"openWorld":   types.Boolean(a.OpenWorld),
	}
}

// bareRecords are the records of resources without arguments, made once:
// a resource's and a prompt's (empty), and a tool's for each combination of
// its annotations (bits of annotationBits).
var (
	emptyRecord = types.NewRecord(nil)
	bareTools   = func() (r [32]types.Record) {
		for i := range r {
			a := authz.Annotations{Known: i&1 != 0, ReadOnly: i&2 != 0, Destructive: i&4 != 0, Idempotent: i&8 != 0, OpenWorld: i&16 != 0}
			r[i] = types.NewRecord(annotationAttributes(toolType, a))
		}
		return r
	}()
)

func bareRecord(typ types.EntityType, a authz.Annotations) types.Record {
	if typ != toolType {
		return emptyRecord
	}
	return bareTools[annotationBits(a)]
}

func annotationBits(a authz.Annotations) int {
	i := 0
	for bit, set := range [...]bool{a.Known, a.ReadOnly, a.Destructive, a.Idempotent, a.OpenWorld} {
		if set {
			i |= 1 << bit
		}
	}
	return i
}

// argumentsOf converts a call's arguments, a JSON object, to a record, or
// says why it did not.
func argumentsOf(raw json.RawMessage) (types.Value, string) {
	if len(raw) > maxArgumentBytes {
		return nil, skippedSize
	}
	if depthOf(raw) > maxDepth {
		return nil, skippedDepth
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, skippedInvalid
	}
	v, res := valueOf(m, 1)
	if res == tooDeep {
		return nil, skippedDepth
	}
	return v, ""
}

// depthOf is how deeply the objects and arrays of the JSON text b nest,
// counted without decoding it: an object of scalars is 1.
func depthOf(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

type conversion uint8

const (
	converted conversion = iota
	omitted              // Cedar has no such value (null, a number it cannot hold): the field is left out
	tooDeep
)

// valueOf converts a decoded JSON value (or a claim, which a verifier
// decoded from JSON) at nesting level depth to a Cedar value: a string, a
// boolean, an integer (Long), another number that Cedar's decimal holds
// (four decimal places at most), an array as a set, an object as a record.
// null and numbers Cedar cannot hold are omitted: a record leaves the
// field out, a set the element.
func valueOf(v any, depth int) (types.Value, conversion) {
	switch v := v.(type) {
	case string:
		return types.String(v), converted
	case bool:
		return types.Boolean(v), converted
	case json.Number:
		return numberOf(string(v))
	case float64:
		return floatOf(v)
	case int:
		return types.Long(v), converted
	case int64:
		return types.Long(v), converted
	case int32:
		return types.Long(v), converted
	case []string:
		return stringSet(v), converted
	case []any:
		return setOf(v, depth)
	case map[string]any:
		return recordOf(v, depth)
	}
	return nil, omitted
}

// stringSet is the Cedar set of the strings v.
func stringSet(v []string) types.Set {
	s := make([]types.Value, len(v))
	for i, e := range v {
		s[i] = types.String(e)
	}
	return types.NewSet(s...)
}

// floatOf converts a number decoded as a float64: an integer to a Long.
func floatOf(f float64) (types.Value, conversion) {
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return types.Long(int64(f)), converted
	}
	return numberOf(strconv.FormatFloat(f, 'f', -1, 64))
}

// setOf converts an array at level depth to a set of what converts.
func setOf(v []any, depth int) (types.Value, conversion) {
	s := make([]types.Value, 0, len(v))
	if !convertEach(slices.All(v), depth, func(_ int, ev types.Value) { s = append(s, ev) }) {
		return nil, tooDeep
	}
	return types.NewSet(s...), converted
}

// recordOf converts an object at level depth to a record of the fields
// that convert.
func recordOf(v map[string]any, depth int) (types.Value, conversion) {
	m := make(types.RecordMap, len(v))
	if !convertEach(maps.All(v), depth, func(k string, ev types.Value) { m[types.String(k)] = ev }) {
		return nil, tooDeep
	}
	return types.NewRecord(m), converted
}

// convertEach converts the elements of an array or an object at level
// depth, handing keep those that convert; it reports false when one is
// nested too deep.
func convertEach[K any](elems iter.Seq2[K, any], depth int, keep func(K, types.Value)) bool {
	if depth > maxDepth {
		return false
	}
	for k, e := range elems {
		ev, res := valueOf(e, depth+1)
		switch res {
		case tooDeep:
			return false
		case converted:
			keep(k, ev)
		}
	}
	return true
}

func numberOf(s string) (types.Value, conversion) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return types.Long(i), converted
	}
	if d, err := types.ParseDecimal(s); err == nil {
		return d, converted
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
		return types.Long(int64(f)), converted // 1e3, 2.0
	}
	return nil, omitted
}

// contexts are the four contexts a request can have, made once.
var contexts = func() (c [2][2]types.Record) {
	for listing := range 2 {
		for skipped := range 2 {
			c[listing][skipped] = types.NewRecord(types.RecordMap{
				"listing":          types.Boolean(listing == 1),
				"argumentsSkipped": types.Boolean(skipped == 1),
			})
		}
	}
	return c
}()

// contextOf is the request's context: whether it is a list's entry, and
// whether its arguments were left out.
func contextOf(listing bool, skipped string) types.Record {
	l, s := 0, 0
	if listing {
		l = 1
	}
	if skipped != "" {
		s = 1
	}
	return contexts[l][s]
}

var _ cedar.EntityGetter = (*entities)(nil)
