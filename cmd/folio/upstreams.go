package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/telemetry"
	"github.com/folio-mcp/folio/upstream"
)

// defaultUpstreamTimeout bounds the discovery of one upstream.
const defaultUpstreamTimeout = 10 * time.Second

func upstreamsCommand() *cli.Command {
	files := []cli.Flag{
		&cli.StringFlag{Name: "upstreams", Required: true, EnvVars: []string{"FOLIO_UPSTREAMS"}, Usage: `the mcpServers JSON file ({"mcpServers":{"NAME":{"command"…} or {"type":"http","url"…}}})`},
		&cli.StringFlag{Name: "schema-cache", EnvVars: []string{"FOLIO_SCHEMA_CACHE"}, Usage: "the schema cache file (default $XDG_CACHE_HOME/folio/upstreams-HASH.json, one per --upstreams file)"},
	}
	return &cli.Command{
		Name:  "upstreams",
		Usage: "the MCP servers behind folio and the cache of their tool schemas",
		Subcommands: []*cli.Command{{
			Name:  "list",
			Usage: "print each upstream, the state of its cache entry, its tool count and when it was fetched",
			Description: `The cache state of an upstream is "fresh" when its entry was fetched with the
configuration the file gives now, "stale" when the entry is of another
configuration (an edit invalidates it), and "missing" when there is none.`,
			Flags:  append(files, &cli.BoolFlag{Name: "json", Usage: "print a JSON array"}),
			Action: upstreamsList,
		}, {
			Name:  "refresh",
			Usage: "discover every upstream now, all at once, and rewrite the schema cache",
			Description: `An upstream that cannot be reached keeps its cache entry; entries of upstreams
no longer in the file are dropped. Exits 1 when any upstream failed.`,
			Flags:  append(files, &cli.DurationFlag{Name: "upstream-timeout", Value: defaultUpstreamTimeout, EnvVars: []string{"FOLIO_UPSTREAM_TIMEOUT"}, Usage: "how long one upstream may take to start and list its tools"}),
			Action: upstreamsRefresh,
		}},
	}
}

// upstreamFiles loads the configuration and names the cache file, as the
// flags say.
func upstreamFiles(c *cli.Context) ([]upstream.Server, string, error) {
	return loadUpstreams(c.String("upstreams"), c.String("schema-cache"))
}

// loadUpstreams loads the configuration file and names the cache file
// (cache, or the default one of the configuration).
func loadUpstreams(config, cache string) ([]upstream.Server, string, error) {
	servers, err := upstream.Load(config)
	if err != nil {
		return nil, "", err
	}
	if cache == "" {
		if cache, err = upstream.DefaultCachePath(config); err != nil {
			return nil, "", err
		}
	}
	return servers, cache, nil
}

// upstreamState is one line of upstreams list.
type upstreamState struct {
	Name      string    `json:"name"`
	Transport string    `json:"transport"`
	Cache     string    `json:"cache"`
	Tools     int       `json:"tools"`
	Fetched   time.Time `json:"fetched,omitzero"`
	Server    string    `json:"server,omitempty"`
	Version   string    `json:"version,omitempty"`
	Protocol  string    `json:"protocol,omitempty"`
}

func upstreamsList(c *cli.Context) error {
	servers, path, err := upstreamFiles(c)
	if err != nil {
		return upstreamsFailed(c, err)
	}
	cache, err := upstream.ReadCache(path)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "folio: %v\n", err)
	}
	states := []upstreamState{}
	for _, s := range servers {
		st := upstreamState{Name: s.Name, Transport: s.Transport, Cache: "missing"}
		if e, ok := cache.Upstreams[s.Name]; ok {
			st.Cache = "stale"
			if _, fresh := cache.Lookup(s); fresh {
				st.Cache = "fresh"
			}
			st.Tools, st.Fetched, st.Server, st.Version, st.Protocol = len(e.Tools), e.Fetched, e.Server, e.Version, e.Protocol
		}
		states = append(states, st)
	}
	if c.Bool("json") {
		b, err := json.Marshal(states)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTRANSPORT\tCACHE\tTOOLS\tFETCHED\tPROTOCOL\tSERVER")
	for _, st := range states {
		fetched, protocol := "-", "-"
		if !st.Fetched.IsZero() {
			fetched = st.Fetched.Format(time.RFC3339)
		}
		if st.Protocol != "" {
			protocol = st.Protocol
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", st.Name, st.Transport, st.Cache, st.Tools, fetched, protocol, (st.Server + " " + st.Version))
	}
	return w.Flush()
}

func upstreamsRefresh(c *cli.Context) error {
	timeout := c.Duration("upstream-timeout")
	if timeout <= 0 {
		return fail(c, false, usageError(c, "--upstream-timeout must be positive"))
	}
	servers, path, err := upstreamFiles(c)
	if err != nil {
		return upstreamsFailed(c, err)
	}
	entries, errs, err := upstream.Refresh(c.Context, servers, upstream.Options{CachePath: path, Timeout: timeout, Version: folioVersion()})
	if err != nil {
		return upstreamsFailed(c, err)
	}
	failed := 0
	for i, s := range servers {
		if errs[i] != nil {
			failed++
			fmt.Fprintf(c.App.ErrWriter, "folio: %s: %v (its cache entry, if any, is kept)\n", s.Name, errs[i])
			continue
		}
		fmt.Fprintf(c.App.Writer, "%s: %d tools (%s %s, MCP %s)\n", s.Name, len(entries[i].Tools), entries[i].Server, entries[i].Version, entries[i].Protocol)
	}
	if failed > 0 {
		return exitError{exitFailure}
	}
	return nil
}

// upstreamsFailed reports an error of the upstreams commands.
func upstreamsFailed(c *cli.Context, err error) error {
	fmt.Fprintf(c.App.ErrWriter, "folio: %v\n", err)
	return exitError{exitFailure}
}

// startGateway starts the upstreams of serve --upstreams, or returns nil
// without the flag.
func startGateway(ctx context.Context, o serveOptions, log *slog.Logger, in *telemetry.Instruments) (*upstream.Gateway, error) {
	if o.upstreams == "" {
		return nil, nil
	}
	servers, cache, err := loadUpstreams(o.upstreams, o.schemaCache)
	if err != nil {
		return nil, err
	}
	return upstream.Start(ctx, servers, upstream.Options{
		CachePath: cache, Timeout: o.upstreamTimeout, Version: folioVersion(), Logger: log,
		OnDemand: o.upstreamOnDemand, IdleTimeout: o.upstreamIdle, Backoff: o.upstreamBackoff, BackoffMax: o.upstreamBackoffMax,
		Telemetry: in,
	})
}

// The values of --upstream-start.
const (
	startOnDemand = "on-demand"
	startEager    = "eager"
)
