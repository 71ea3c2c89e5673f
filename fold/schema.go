package fold

import (
	"fmt"

	"github.com/folio-mcp/folio/schema"
)

// admits checks that a tool's output schema, compiled once per tool
// definition, accepts the folded answer folded (its JSON), so that a
// client validating structuredContent against the schema takes it. No
// schema (nil) admits everything.
func admits(out *schema.Checker, folded []byte) error {
	if out == nil {
		return nil
	}
	if err := out.Validate(folded); err != nil {
		return fmt.Errorf("fold: the output schema does not admit the folded answer: %w", err)
	}
	return nil
}
