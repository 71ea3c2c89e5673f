package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolTable: tools/list offers exactly the table's own tools, each as
// its entry defines it, and every tool of the table (meta-tools aside,
// which need a gateway) is one the metrics name as offered.
func TestToolTable(t *testing.T) {
	e := newEnv(t)
	s := e.server(t, serverOpts{local: true})
	res, err := dialMemory(t, s, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	named := func(name string) *callTarget {
		return newTarget(&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name}})
	}
	var want []string
	for _, tt := range tools {
		if !tt.meta && (tt.offered == nil || tt.offered(s)) {
			want = append(want, tt.name)
		}
		if !tt.meta && !s.offers(named(tt.name)) {
			t.Errorf("%s: offers says no", tt.name)
		}
	}
	slices.Sort(want)
	var got []string
	for _, listed := range res.Tools {
		got = append(got, listed.Name)
		own := ownTool(listed.Name)
		if own == nil {
			t.Errorf("%s is listed but not in the table", listed.Name)
			continue
		}
		def := own.definition(s)
		var listedSchema, defSchema any
		raw, _ := json.Marshal(listed.InputSchema)
		json.Unmarshal(raw, &listedSchema)
		json.Unmarshal(def.InputSchema.(json.RawMessage), &defSchema)
		if listed.Description != def.Description || !reflect.DeepEqual(listedSchema, defSchema) || listed.Annotations == nil || !listed.Annotations.ReadOnlyHint {
			t.Errorf("%s is listed as %+v, the table has %+v", listed.Name, listed, def)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("tools/list %v, the table %v", got, want)
	}
	if s.offers(named("made_up")) || ownTool("find_tools") != nil || !metaTool("find_tools") || metaTool("read") {
		t.Error("a name outside the table, or a meta-tool, is taken for one of folio's own tools")
	}
}
