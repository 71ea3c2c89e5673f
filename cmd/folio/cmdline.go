package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

// folio's command line is urfave/cli's commands, flags and contexts, run
// by runCommands rather than by cli.App.Run: App.Run prints help through
// text/template, whose reflective method lookup makes the linker keep
// every exported method of every type in the binary (about 10 MB of a
// 46 MB binary; docs/benchmarks.md, "Size and start-up"). runCommands
// parses, dispatches and prints help as App.Run does for folio's commands
// (no categories, no custom templates, no Before or After): TestHelpTexts
// holds the help to the texts urfave/cli printed, except where urfave's
// printed less ("folio help token" stopped after USAGE) and where the help
// has changed since. A usage error of a help command is folio's one line,
// as any command's (urfave printed its own text and the help's help).

// helpUsage is the help command's usage, as urfave/cli words it.
const helpUsage = "Shows a list of commands or help for one command"

// frame is one command being run: its context and the frame of the
// command that named it (nil at the root).
type frame struct {
	ctx    *cli.Context
	cmd    *cli.Command
	parent *frame
}

// runCommands runs the command line args (args[0] is the program) on app.
func runCommands(app *cli.App, args []string) error {
	app.HelpName = app.Name
	root := &cli.Command{
		Name: app.Name, Usage: app.Usage, HelpName: app.Name,
		Subcommands:  app.Commands,
		Flags:        []cli.Flag{cli.HelpFlag, cli.VersionFlag},
		OnUsageError: app.OnUsageError,
	}
	for _, c := range app.Commands {
		c.HelpName = app.Name + " " + c.Name
	}
	help := newHelpCommand()
	help.HelpName = app.Name + " help"
	root.Subcommands = append(root.Subcommands, help)
	app.Commands = root.Subcommands
	return runCommand(app, root, nil, args[1:])
}

// newHelpCommand is the "help" command every command has.
func newHelpCommand() *cli.Command {
	return &cli.Command{Name: "help", Aliases: []string{"h"}, Usage: helpUsage, ArgsUsage: "[command]"}
}

// setupCommand gives a command what urfave/cli's setup does: a help
// subcommand and flag, and its subcommands' help names.
func setupCommand(c *cli.Command) {
	if c.Command("help") == nil {
		h := newHelpCommand()
		if c.Name == "help" {
			h = c
		}
		c.Subcommands = append(c.Subcommands, h)
	}
	if !slices.Contains(c.Flags, cli.HelpFlag) {
		c.Flags = append(c.Flags, cli.HelpFlag)
	}
	for _, s := range c.Subcommands {
		if s.HelpName == "" {
			s.HelpName = c.HelpName + " " + s.Name
		}
	}
}

// runCommand parses args with c's flags and runs c, its subcommand named
// by the first argument left, or its help.
func runCommand(app *cli.App, c *cli.Command, parent *frame, args []string) error {
	if parent != nil {
		setupCommand(c)
	}
	set := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	var parentCtx *cli.Context
	if parent != nil {
		parentCtx = parent.ctx
	}
	ctx := cli.NewContext(app, set, parentCtx)
	ctx.Command = c
	f := &frame{ctx: ctx, cmd: c, parent: parent}
	err := applyFlags(c.Flags, set)
	if err == nil {
		err = set.Parse(args)
	}
	if err == nil {
		err = normalizeFlags(c.Flags, set)
	}
	if err != nil {
		if c.OnUsageError == nil { // the help commands runCommands adds
			return app.OnUsageError(ctx, err, parent != nil)
		}
		return c.OnUsageError(ctx, err, parent != nil)
	}
	if ctx.Bool("help") {
		return helpAction(app, f)
	}
	if parent == nil && ctx.Bool("version") {
		_, err := fmt.Fprintf(app.Writer, "%v version %v\n", app.Name, app.Version)
		return err
	}
	return dispatch(app, f)
}

// dispatch runs what a parsed command line names: the subcommand named by
// its first argument, else the command's action, else its help. A missing
// required flag prints the help and is an error.
func dispatch(app *cli.App, f *frame) error {
	if err := requiredFlags(f.ctx, f.cmd.Flags); err != nil {
		_ = helpAction(app, f)
		return err
	}
	if args := f.ctx.Args(); args.Present() {
		if sub := f.cmd.Command(args.First()); sub != nil {
			return runCommand(app, sub, f, args.Tail())
		}
	}
	if f.cmd.Action == nil || f.cmd.Name == "help" {
		return helpAction(app, f)
	}
	return f.cmd.Action(f.ctx)
}

// applyFlags defines flags in set.
func applyFlags(flags []cli.Flag, set *flag.FlagSet) error {
	for _, fl := range flags {
		if err := fl.Apply(set); err != nil {
			return err
		}
	}
	return nil
}

// normalizeFlags gives every name of a flag set by one of its names the
// value set, and refuses two names of one flag, as urfave/cli does.
func normalizeFlags(flags []cli.Flag, set *flag.FlagSet) error {
	visited := map[string]bool{}
	set.Visit(func(f *flag.Flag) { visited[f.Name] = true })
	for _, fl := range flags {
		names := fl.Names()
		var set1 *flag.Flag
		for _, name := range names {
			if !visited[name] {
				continue
			}
			if set1 != nil {
				return errors.New("Cannot use two forms of the same flag: " + name + " " + set1.Name)
			}
			set1 = set.Lookup(name)
		}
		for _, name := range names {
			if set1 != nil && !visited[name] {
				_ = set.Set(name, set1.Value.String())
			}
		}
	}
	return nil
}

// requiredFlags is the error for the required flags that are not set.
func requiredFlags(ctx *cli.Context, flags []cli.Flag) error {
	var missing []string
	for _, fl := range flags {
		rf, ok := fl.(cli.RequiredFlag)
		if !ok || !rf.IsRequired() || slices.ContainsFunc(fl.Names(), ctx.IsSet) {
			continue
		}
		missing = append(missing, fl.Names()[0])
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("Required flag %q not set", missing[0])
	}
	return fmt.Errorf("Required flags %q not set", strings.Join(missing, ", "))
}

// helpAction is urfave/cli's help command: the help of the command its
// first argument names, else of the program, else of the command.
func helpAction(app *cli.App, f *frame) error {
	first := f.ctx.Args().First()
	if f.cmd.Name == "help" && f.parent != nil {
		f = f.parent
	}
	if first != "" {
		return commandHelp(app, f, first)
	}
	if f.parent == nil {
		return printHelp(app.Writer, appHelp(app, f.cmd))
	}
	return printHelp(app.Writer, commandHelpText(f.cmd, len(f.cmd.Subcommands) > 1))
}

// commandHelp prints the help of the subcommand of f named name.
func commandHelp(app *cli.App, f *frame, name string) error {
	c := f.cmd.Command(name)
	if c == nil {
		return fmt.Errorf("No help topic for '%v'", name)
	}
	if len(c.Subcommands) != 0 && c.Command("help") == nil {
		c.Subcommands = append(c.Subcommands, newHelpCommand())
	}
	if !slices.Contains(c.Flags, cli.HelpFlag) {
		c.Flags = append(c.Flags, cli.HelpFlag)
	}
	return printHelp(app.Writer, commandHelpText(c, len(c.Subcommands) > 0))
}

// printHelp writes a help text, its columns aligned at tabs.
func printHelp(w io.Writer, text string) error {
	tw := tabwriter.NewWriter(w, 1, 8, 2, ' ', 0)
	if _, err := io.WriteString(tw, text); err != nil {
		return err
	}
	return tw.Flush()
}

// appHelp is the program's help: urfave/cli's AppHelpTemplate.
func appHelp(app *cli.App, root *cli.Command) string {
	var b strings.Builder
	b.WriteString("NAME:\n   " + helpNameLine(app.HelpName, app.Usage) + "\n\nUSAGE:\n   " + app.HelpName + " [global options] command [command options]")
	if app.Version != "" {
		b.WriteString("\n\nVERSION:\n   " + app.Version)
	}
	b.WriteString("\n\nCOMMANDS:" + commandList(root.Subcommands))
	b.WriteString("\n\nGLOBAL OPTIONS:" + flagList(root.Flags) + "\n")
	return b.String()
}

// commandHelpText is a command's help: urfave/cli's CommandHelpTemplate,
// or with subcommands its SubcommandHelpTemplate.
func commandHelpText(c *cli.Command, subcommands bool) string {
	var b strings.Builder
	b.WriteString("NAME:\n   " + helpNameLine(c.HelpName, c.Usage) + "\n\nUSAGE:\n   ")
	if c.UsageText != "" {
		b.WriteString(wrapHelp(c.UsageText, 3))
	} else {
		b.WriteString(c.HelpName)
		if len(visibleFlags(c.Flags)) > 0 {
			b.WriteString(" [command options]")
		}
		if c.ArgsUsage != "" {
			b.WriteString(" " + c.ArgsUsage)
		}
	}
	if c.Description != "" {
		b.WriteString("\n\nDESCRIPTION:\n   " + wrapHelp(c.Description, 3))
	}
	if subcommands {
		b.WriteString("\n\nCOMMANDS:" + commandList(c.Subcommands))
	}
	if len(visibleFlags(c.Flags)) > 0 {
		b.WriteString("\n\nOPTIONS:" + flagList(c.Flags))
	}
	return b.String() + "\n"
}

// helpNameLine is the NAME line: the name and its usage.
func helpNameLine(name, usage string) string {
	if usage == "" {
		return wrapHelp(name, 3)
	}
	return wrapHelp(name, 3) + " - " + wrapHelp(usage, len(name)+6)
}

// commandList is the COMMANDS section's lines: each visible command's
// names, then its usage in one column.
func commandList(cmds []*cli.Command) string {
	width := 0
	for _, c := range cmds {
		width = max(width, len(strings.Join(c.Names(), ", ")))
	}
	width += 5
	var b strings.Builder
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		names := strings.Join(c.Names(), ", ")
		b.WriteString("\n   " + names + strings.Repeat(" ", max(width-(len(names)+3), 0)) + wrapHelp(c.Usage, width))
	}
	return b.String()
}

// flagList is the OPTIONS section's lines.
func flagList(flags []cli.Flag) string {
	var b strings.Builder
	for _, fl := range visibleFlags(flags) {
		b.WriteString("\n   " + wrapHelp(fmt.Sprint(fl), 6))
	}
	return b.String()
}

// visibleFlags are the flags that are not hidden.
func visibleFlags(flags []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, fl := range flags {
		if v, ok := fl.(cli.VisibleFlag); !ok || v.IsVisible() {
			out = append(out, fl)
		}
	}
	return out
}

// wrapHelp indents every line of s after the first by offset spaces
// (urfave/cli's wrap at its width of 10,000, which wraps no line).
func wrapHelp(s string, offset int) string {
	lines := strings.Split(s, "\n")
	pad := strings.Repeat(" ", offset)
	for i, line := range lines {
		if i > 0 && line != "" {
			lines[i] = pad + line
		}
	}
	return strings.Join(lines, "\n")
}
