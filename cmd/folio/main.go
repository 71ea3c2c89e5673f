// Command folio serves files to LLM agents in exact, token-budgeted pages.
//
// Usage:
//
//	folio serve --root DIR [--root DIR…] [--http ADDR] [--tokens FILE] [--stateless]
//	folio upstreams list|refresh --upstreams FILE [--schema-cache FILE]
//	folio token add --tokens FILE --subject NAME [--allow GLOB…]
//	folio token list|revoke --tokens FILE [--subject NAME]
//	folio read [--server URL [--token T]] [--max-tokens N] [--cursor C] [--all] [--offset L] [--limit N] PATH
//	folio search [--max-tokens N] QUESTION [PATH…]
//	folio verify [--server URL [--token T]] [--max-tokens N[,N…]] [--json] PATH…
//	folio count PATH… | -
//	folio hash PATH…
//	folio llms-txt [--out DIR] DIR
//	folio version
//
// Flags go before or after the PATHs; "--" ends them, so that a PATH may
// start with '-'. Run "folio help COMMAND" for every flag; every flag can
// also be set with the FOLIO_* environment variable its help names.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := runCommands(app, flagsFirst(app.Commands, args))
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

// newApp is folio's command line: its commands, and the one way each
// reports a usage error.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:      "folio",
		Usage:     "serve files to LLM agents in exact, token-budgeted pages",
		Version:   versionLine(),
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		Commands: []*cli.Command{
			serveCommand(),
			tokenCommand(),
			readCommand(),
			searchCommand(),
			outlineCommand(),
			verifyCommand(),
			countCommand(),
			hashCommand(),
			llmsTxtCommand(),
			upstreamsCommand(),
			versionCommand(),
		},
		// Exit codes are ours: never let the library exit.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   onUsageError,
	}
	setOnUsageError(app.Commands)
	return app
}

// onUsageError reports a command line the flag parser refuses (a flag not
// defined, a value missing or not of its type) in one line, and where the
// help is, rather than the whole help: exit 2.
func onUsageError(c *cli.Context, err error, _ bool) error {
	name := "folio"
	if c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	fmt.Fprintf(c.App.ErrWriter, "folio: %v\nRun '%s --help' for usage.\n", err, name)
	return exitError{exitInvalidArgument}
}

// setOnUsageError gives every command, and every subcommand, onUsageError:
// urfave/cli gives the App's to the top-level command alone.
func setOnUsageError(commands []*cli.Command) {
	for _, c := range commands {
		c.OnUsageError = onUsageError
		setOnUsageError(c.Subcommands)
	}
}

// flagsFirst is the command line as people type it, made into one the
// flag parser takes (it stops at the first argument that is no flag):
// the flags of the command named (and of its subcommand, when it has
// them) are moved before its other arguments, which follow a "--", so
// that flags may come before and after PATHs alike. A flag that takes a
// value takes the argument after it, unless written --flag=value; a
// boolean flag takes none. "--" ends the flags: every argument after it
// is a PATH, even one that starts with '-'. "-" alone is a PATH
// (standard input). With -h or --help among the flags, the PATHs are
// left out: the command's help is printed, as it is without them. A
// command line that names no command, or a command with subcommands but
// not one of them, is left as it is.
func flagsFirst(commands []*cli.Command, args []string) []string {
	var cmd *cli.Command
	i := 1
	for ; i < len(args); i++ {
		j := slices.IndexFunc(commands, func(c *cli.Command) bool { return c.HasName(args[i]) })
		if j < 0 {
			break
		}
		cmd, commands = commands[j], commands[j].Subcommands
		if len(commands) == 0 {
			i++
			break
		}
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	out := slices.Clip(args[:i])
	var paths []string
	help := false
	for rest := args[i:]; len(rest) > 0; rest = rest[1:] {
		arg := rest[0]
		switch {
		case arg == "--":
			paths = append(paths, rest[1:]...)
			rest = rest[:1]
		case arg == "-" || !strings.HasPrefix(arg, "-"):
			paths = append(paths, arg)
		default:
			out = append(out, arg)
			name := strings.TrimLeft(arg, "-")
			help = help || slices.Contains(cli.HelpFlag.Names(), name)
			if strings.Contains(name, "=") || !takesValue(cmd.Flags, name) {
				break
			}
			if len(rest) == 1 {
				return out // its value is missing: the parser says so
			}
			out = append(out, rest[1])
			rest = rest[1:]
		}
	}
	if help {
		return out // the command's help, whatever PATHs are named
	}
	return append(append(out, "--"), paths...)
}

// takesValue reports whether the flag of that name (or alias) takes a
// value; an unknown flag is left for the parser to refuse.
func takesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			v, ok := f.(cli.DocGenerationFlag)
			return ok && v.TakesValue()
		}
	}
	return false
}
