//lint:file-ignore SA1019 sampling and roots, deprecated in 2026-07-28, are still what an upstream may ask for

package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds on what an upstream may ask an older era's client through folio
// within one call: rounds, and requests in one round.
const (
	maxInputRounds   = 10
	maxInputRequests = 16
)

// answerInputs asks the session's client what an upstream's input
// requests ask (SEP-2322): each in turn, the first refusal ending it.
func answerInputs(ctx context.Context, ss *mcp.ServerSession, requests mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	if len(requests) > maxInputRequests {
		return nil, fmt.Errorf("%d input requests at once, over the %d folio asks a client", len(requests), maxInputRequests)
	}
	responses := make(mcp.InputResponseMap, len(requests))
	for id, r := range requests {
		var res mcp.InputResponse
		var err error
		switch p := r.(type) {
		case *mcp.ElicitParams:
			res, err = ss.Elicit(ctx, p)
		case *mcp.CreateMessageWithToolsParams:
			res, err = ss.CreateMessageWithTools(ctx, p)
		case *mcp.ListRootsParams:
			res, err = ss.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("folio cannot ask a client for %T", r)
		}
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", id, err)
		}
		responses[id] = res
	}
	return responses, nil
}
