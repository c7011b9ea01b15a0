/**
 * `--key-env NAME` (or `--key-env=NAME`) becomes `--key <value of NAME>` before the command runs or is
 * forwarded to the embedded server: the upstream key then never appears on a command line that the shell
 * history, `ps` or npm's echo would show. Returns an error message instead when it cannot be done.
 */
export function keyFromEnvironment(
  argv: readonly string[],
  readVariable: (name: string) => string | undefined,
): { argv: string[] } | { error: string } {
  const index = argv.findIndex((item) => item === "--key-env" || item.startsWith("--key-env="));
  if (index === -1) return { argv: [...argv] };
  const item = argv[index]!;
  const inline = item.startsWith("--key-env=");
  const name = inline ? item.slice("--key-env=".length) : argv[index + 1];
  if (!name || name.startsWith("--")) return { error: "--key-env needs the name of an environment variable" };
  if (argv.some((other) => other === "--key" || other.startsWith("--key="))) {
    return { error: "give either --key or --key-env, not both" };
  }
  if (argv.filter((other) => other === "--key-env" || other.startsWith("--key-env=")).length > 1) {
    return { error: "--key-env was given more than once" };
  }
  const value = readVariable(name)?.trim();
  if (!value) return { error: `the environment variable ${name} named by --key-env is not set` };
  const rest = [...argv];
  rest.splice(index, inline ? 1 : 2, "--key", value);
  return { argv: rest };
}
