package mcpserver

import (
	"context"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/folio-mcp/folio/fsview"
)

// filePrompt is the prompt that attaches a file: what a client offers its
// user as a command ("/file README.md"), so that a person, not only the
// model, can put a served file into the conversation.
const filePrompt = "file"

// completionLimit is the most values one completion answer holds, as MCP
// allows.
const completionLimit = 100

// addPrompts offers folio's one prompt.
func (s *Server) addPrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{
		Name:        filePrompt,
		Title:       "Attach a file",
		Description: "A text file under the served roots, attached whole as a resource (a file over the resource read cap is refused: page it with the read tool).",
		Arguments: []*mcp.PromptArgument{{
			Name:        "path",
			Description: "the file: a path relative to the first root, an absolute path or a file:// URI",
			Required:    true,
		}},
	}, s.getFilePrompt)
}

// getFilePrompt answers prompts/get of the file prompt: one user message
// that embeds the file as resources/read gives it, with the same caps and
// the same rights.
func (s *Server) getFilePrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Arguments["path"]
	if name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the file prompt needs its path argument: a file under the served roots"}
	}
	c, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	contents, meta, err := s.fileContents(ctx, c, name)
	if err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{
		Description: "The file " + contents.URI,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.EmbeddedResource{Resource: contents}}},
		Meta:        meta,
	}, nil
}

// complete answers completion/complete: the names of files and directories
// that continue a path argument (the file prompt's, or the file resource
// template's), as the caller's list would show them, directories ending in
// "/". Any other argument has no completions.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	none := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ref, arg := req.Params.Ref, req.Params.Argument
	var absolute bool
	switch {
	case arg.Name != "path":
		return none, nil
	case ref.Type == "ref/prompt" && ref.Name == filePrompt:
	case ref.Type == "ref/resource" && ref.URI == fileTemplate:
		// The template's path is the absolute path without its first
		// slash.
		absolute = true
	default:
		return none, nil
	}
	c, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	dir, prefix := path.Split(arg.Value)
	lookup := dir
	switch {
	case absolute:
		lookup = "/" + dir
	case lookup == "":
		lookup = "."
	}
	values, total := []string{}, 0
	add := func(value string) {
		if total++; len(values) < completionLimit {
			values = append(values, value)
		}
	}
	d, err := c.fs.Resolve(lookup)
	switch {
	case err == nil && d.IsDir():
		err = c.fs.List(ctx, d, fsview.ListOptions{MaxDepth: 1}, func(f fsview.File) error {
			base := path.Base(f.Rel)
			if !strings.HasPrefix(base, prefix) {
				return nil
			}
			if f.IsDir() {
				base += "/"
			}
			add(dir + base)
			return nil
		})
		if err != nil {
			return nil, err
		}
	case absolute || path.IsAbs(arg.Value):
		// Outside every root, or not yet in one: the roots the value
		// leads to.
		for _, root := range c.fs.Roots() {
			value := strings.TrimSuffix(root, "/") + "/"
			if absolute {
				value = value[1:]
			}
			if strings.HasPrefix(value, arg.Value) {
				add(value)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
		Values:  values,
		Total:   total,
		HasMore: total > len(values),
	}}, nil
}
