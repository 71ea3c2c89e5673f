package fold

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Admits checks that a tool's output schema accepts the folded answer
// folded (its JSON), so that a client validating structuredContent against
// the schema takes it. An empty schema admits everything.
func Admits(schema json.RawMessage, folded []byte) error {
	if len(schema) == 0 {
		return nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("fold: the output schema does not parse: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("fold: the output schema does not resolve: %w", err)
	}
	var instance any
	if err := json.Unmarshal(folded, &instance); err != nil {
		return err
	}
	if err := resolved.Validate(instance); err != nil {
		return fmt.Errorf("fold: the output schema does not admit the folded answer: %w", err)
	}
	return nil
}
