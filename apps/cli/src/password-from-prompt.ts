/** Reads a password from whoever runs the CLI; rejects when none can be read. */
export type PasswordReader = () => Promise<string>;

const isUserCreate = (argv: readonly string[]) => argv[0] === "user" && argv[1] === "create";
const givesPassword = (argv: readonly string[]) => argv.some((item) => item === "--password" || item.startsWith("--password="));

/**
 * `user create --password-prompt`, or `user create --admin` with no password flag, becomes
 * `--password <what was typed>` before the command runs or is forwarded to the embedded server: the password
 * then never appears on a command line (shell history, `ps`, npm's echo). `--password-env NAME` is the
 * scripted way (keyFromEnvironment); `--password` still works. Other commands are left untouched.
 */
export async function passwordFromPrompt(argv: readonly string[], readPassword: PasswordReader): Promise<{ argv: string[] } | { error: string }> {
  if (!isUserCreate(argv)) return { argv: [...argv] };
  const asked = argv.includes("--password-prompt");
  const rest = argv.filter((item) => item !== "--password-prompt");
  if (givesPassword(rest)) return asked ? { error: "give either --password, --password-env or --password-prompt" } : { argv: rest };
  if (!asked && !rest.includes("--admin")) return { argv: rest };
  const password = await readPassword();
  if (password === "") return { error: "no password was given" };
  return { argv: [...rest, "--password", password] };
}

/** The first line of `stdin` (without its line end), or what there is before it ends. */
async function firstLine(stdin: NodeJS.ReadStream): Promise<string> {
  let text = "";
  for await (const chunk of stdin) {
    text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
    const end = text.indexOf("\n");
    if (end !== -1) {
      stdin.pause();
      return text.slice(0, end).replace(/\r$/, "");
    }
  }
  return text.replace(/\r$/, "");
}

/** One line typed at the terminal, with nothing echoed; Ctrl-C or Ctrl-D gives up. */
function typedLine(stdin: NodeJS.ReadStream, prompt: string, write: (text: string) => void): Promise<string> {
  write(prompt);
  return new Promise((resolve, reject) => {
    let typed = "";
    const finish = (outcome: () => void) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      write("\n");
      outcome();
    };
    const onData = (chunk: Buffer) => {
      for (const character of chunk.toString("utf8")) {
        if (character === "\r" || character === "\n") return finish(() => resolve(typed));
        if (character === "\u0003" || character === "\u0004") return finish(() => reject(new Error("cancelled")));
        if (character === "\u007f" || character === "\b") typed = typed.slice(0, -1);
        else typed += character;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/**
 * The password from standard input: at a terminal, asked twice without echo; piped (a script, a secret
 * manager), its first line.
 */
export async function readPasswordFromStandardInput(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return firstLine(stdin);
  const write = (text: string) => process.stderr.write(text);
  const password = await typedLine(stdin, "Password: ", write);
  const repeated = await typedLine(stdin, "Repeat the password: ", write);
  if (password !== repeated) throw new Error("the passwords differ");
  return password;
}
