/**
 * The {@code bin/sluice} command line: {@link dev.sluice.runtime.cli.CommandLine} turns the
 * arguments into one {@link dev.sluice.runtime.cli.Command}; {@code serve} is left to
 * {@code Main}, everything else is run by {@link dev.sluice.runtime.cli.Cli} — {@code doctor}
 * (local checks that start nothing and write nothing) and the admin commands, which talk to a
 * running server's admin API over HTTP ({@code SLUICE_URL}, {@code SLUICE_ADMIN_KEY}). Parsing is
 * separate from running so that usage and exit codes are tested without a process or a server.
 */
package dev.sluice.runtime.cli;
