import { normaliseIpEntry } from "@tollgate/shared";
import { CommandError } from "./command-error";

export { normaliseIpEntry };

/** `--ip 1.2.3.4,10.0.0.0/8,::1`: every entry validated and normalised, duplicates dropped. */
export function parseIpAllowList(value: string, flag: string): string[] {
  const entries: string[] = [];
  for (const item of value.split(",")) {
    const normalised = normaliseIpEntry(item.trim());
    if (normalised === null) {
      const shown = JSON.stringify(item.trim().slice(0, 60));
      throw new CommandError(`--${flag}: ${shown} is not an IP address or CIDR range (v4 or v6)`);
    }
    if (!entries.includes(normalised)) entries.push(normalised);
  }
  return entries;
}
