package semconv

// Names of the resources/read and prompts/get requests, which are observed
// like tool calls.
const (
	MethodResourcesRead = "resources/read"
	MethodPromptsGet    = "prompts/get"
	AttrResourceURI     = "mcp.resource.uri"
	AttrPromptName      = "gen_ai.prompt.name"
	KeyResource         = "resource"
	KeyPrompt           = "prompt"
	MsgResourceRead     = "resource read"
	MsgPromptGet        = "prompt get"
)
