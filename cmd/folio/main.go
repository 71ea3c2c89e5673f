// Command folio serves files to LLM agents in exact, token-budgeted pages.
//
// Usage:
//
//	folio serve --root DIR [--root DIR…] [--http ADDR] [--tokens FILE] [--stateless]
//	folio upstreams list|refresh --upstreams FILE [--schema-cache FILE]
//	folio token add --tokens FILE --subject NAME [--allow GLOB…]
//	folio token list|revoke --tokens FILE [--subject NAME]
//	folio read [--server URL [--token T]] [--max-tokens N] [--cursor C] [--all] [--offset L] [--limit N] PATH
//	folio verify [--server URL [--token T]] [--max-tokens N[,N…]] [--json] PATH…
//	folio count PATH… | -
//	folio hash PATH…
//	folio version
//
// Run "folio help COMMAND" for every flag; every flag can also be set with
// the FOLIO_* environment variable its help names.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:      "folio",
		Usage:     "serve files to LLM agents in exact, token-budgeted pages",
		Version:   version(),
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			serveCommand(),
			tokenCommand(),
			readCommand(),
			verifyCommand(),
			countCommand(),
			hashCommand(),
			upstreamsCommand(),
			versionCommand(),
		},
		// Exit codes are ours: never let the library exit.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	err := app.Run(args)
	if err == nil {
		return 0
	}
	var coded exitError
	if errors.As(err, &coded) {
		return coded.code
	}
	// Flag and usage errors.
	fmt.Fprintf(stderr, "folio: %v\n", err)
	return exitInvalidArgument
}
