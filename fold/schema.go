package fold

import (
	"encoding/json"
	"fmt"

	"github.com/folio-mcp/folio/schema"
)

// Admits checks that a tool's output schema accepts the folded answer
// folded (its JSON), so that a client validating structuredContent against
// the schema takes it. An empty schema admits everything; one folio cannot
// judge (see package schema) admits nothing, since the client might judge
// it and refuse.
func Admits(outputSchema json.RawMessage, folded []byte) error {
	if len(outputSchema) == 0 {
		return nil
	}
	c, err := schema.Compile(outputSchema)
	if err != nil {
		return fmt.Errorf("fold: the output schema: %w", err)
	}
	if err := c.Validate(folded); err != nil {
		return fmt.Errorf("fold: the output schema does not admit the folded answer: %w", err)
	}
	return nil
}
