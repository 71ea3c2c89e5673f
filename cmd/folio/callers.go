package main

import (
	"github.com/urfave/cli/v2"

	"github.com/folio-mcp/folio/audit"
)

// callerFlags are serve's flags of what folio keeps and bounds of its
// callers: the audit log, and each subject's rate and concurrency.
func callerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "audit-log", EnvVars: []string{"FOLIO_AUDIT_LOG"}, Usage: "write one JSON line per tool call (time, subject, client, tool, upstream, outcome, duration, sizes) to this file, or - for standard error"},
		&cli.Int64Flag{Name: "audit-log-max-bytes", Value: defaultAuditMaxBytes, EnvVars: []string{"FOLIO_AUDIT_LOG_MAX_BYTES"}, Usage: "rotate --audit-log to FILE.1 (replacing it) before it grows past this (0: never)"},
		&cli.BoolFlag{Name: "audit-args", EnvVars: []string{"FOLIO_AUDIT_ARGS"}, Usage: "keep each call's arguments in --audit-log (at most 16 KiB of them)"},
		&cli.Float64Flag{Name: "rate-per-subject", EnvVars: []string{"FOLIO_RATE_PER_SUBJECT"}, Usage: "most HTTP requests one subject makes a second, a second's worth at once; past it: 429 with Retry-After (0: no bound)"},
		&cli.IntFlag{Name: "concurrent-per-subject", EnvVars: []string{"FOLIO_CONCURRENT_PER_SUBJECT"}, Usage: "most HTTP requests of one subject in flight at once; past it: 429 with Retry-After (0: no bound)"},
	}
}

// defaultAuditMaxBytes is where the audit log rotates unless told.
const defaultAuditMaxBytes = 64 << 20

// callerOptions are callerFlags read.
type callerOptions struct {
	auditLog             string
	auditMaxBytes        int64
	auditArgs            bool
	ratePerSubject       float64
	concurrentPerSubject int
}

func readCallerOptions(c *cli.Context) callerOptions {
	return callerOptions{
		auditLog: c.String("audit-log"), auditMaxBytes: c.Int64("audit-log-max-bytes"), auditArgs: c.Bool("audit-args"),
		ratePerSubject: c.Float64("rate-per-subject"), concurrentPerSubject: c.Int("concurrent-per-subject"),
	}
}

// rules are callerOptions' checks.
func (o callerOptions) rules() []flagRule {
	return []flagRule{
		{o.auditMaxBytes < 0 || o.ratePerSubject < 0 || o.concurrentPerSubject < 0,
			"--audit-log-max-bytes, --rate-per-subject and --concurrent-per-subject must not be negative"},
		{o.auditArgs && o.auditLog == "", "--audit-args needs --audit-log"},
	}
}

// openAudit opens the audit log of --audit-log; nil without one.
func openAudit(o callerOptions) (*audit.Log, error) {
	if o.auditLog == "" {
		return nil, nil
	}
	l, err := audit.Open(o.auditLog, o.auditMaxBytes)
	if err != nil {
		return nil, err
	}
	l.Args = o.auditArgs
	return l, nil
}
