package upstream

import (
	"encoding/json"
)

// A tool may declare that it can only be called as a task (MCP 2025-11-25:
// "execution": {"taskSupport": "required"}). go-sdk v1.8.0 neither sends
// task-augmented calls nor keeps the execution field of a tool it lists,
// so folio, which calls through it, reads the field in the definition as
// it came off the wire (see watch), and leaves such tools out rather than
// offer tools that fail on every call. Any other tool is offered with its
// execution field as the upstream gave it, and called plainly: folio
// declares no tasks of its own, so its clients send it none.

// taskRequired reports whether the tool defined by raw can only be called
// as a task.
func taskRequired(raw json.RawMessage) bool {
	var d struct {
		Execution *struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	return json.Unmarshal(raw, &d) == nil && d.Execution != nil && d.Execution.TaskSupport == "required"
}
