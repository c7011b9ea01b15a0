/**
 * `--key-env NAME` (or `--key-env=NAME`) becomes `--key <value of NAME>` before the command runs or is
 * forwarded to the embedded server: the upstream key then never appears on a command line that the shell
 * history, `ps` or npm's echo would show. Returns an error message instead when it cannot be done.
 * `flag` names another secret taken the same way (`--webhook-secret-env` for the spend alerts' webhook).
 */
export function keyFromEnvironment(
  argv: readonly string[],
  readVariable: (name: string) => string | undefined,
  flag = "--key",
): { argv: string[] } | { error: string } {
  const index = argv.findIndex((item) => item === `${flag}-env` || item.startsWith(`${flag}-env=`));
  if (index === -1) return { argv: [...argv] };
  const item = argv[index]!;
  const inline = item.startsWith(`${flag}-env=`);
  const name = inline ? item.slice(`${flag}-env=`.length) : argv[index + 1];
  if (!name || name.startsWith("--")) return { error: `${flag}-env needs the name of an environment variable` };
  if (argv.some((other) => other === flag || other.startsWith(`${flag}=`))) {
    return { error: `give either ${flag} or ${flag}-env, not both` };
  }
  if (argv.filter((other) => other === `${flag}-env` || other.startsWith(`${flag}-env=`)).length > 1) {
    return { error: `${flag}-env was given more than once` };
  }
  const value = readVariable(name)?.trim();
  if (!value) return { error: `the environment variable ${name} named by ${flag}-env is not set` };
  const rest = [...argv];
  rest.splice(index, inline ? 1 : 2, flag, value);
  return { argv: rest };
}
