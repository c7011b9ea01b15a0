import { NumberField, SelectField } from "./form-fields";

export type ResponseCacheScope = "user" | "token" | "team" | "group";

/** The token form's response-cache settings as typed: a TTL in seconds (empty: off) and whose calls share answers. */
export interface ResponseCacheValue {
  ttl: string;
  scope: ResponseCacheScope;
}

export function responseCacheValue(token?: { responseCacheTtlSeconds: number | null; responseCacheScope: ResponseCacheScope }): ResponseCacheValue {
  return { ttl: token?.responseCacheTtlSeconds == null ? "" : String(token.responseCacheTtlSeconds), scope: token?.responseCacheScope ?? "user" };
}

/** The TTL to send: null when empty (off), the number when whole, undefined when it is not a whole number. */
export function responseCacheTtlFrom(text: string): number | null | undefined {
  if (text.trim() === "") return null;
  const seconds = Number(text);
  return Number.isInteger(seconds) ? seconds : undefined;
}

/**
 * The exact response cache of a token's calls: off unless a TTL is set; shared by the owner's tokens, by
 * this token alone, or (administrators only) by the token's routing group.
 */
export function ResponseCacheFields(props: {
  value: ResponseCacheValue;
  onChange: (value: ResponseCacheValue) => void;
  isAdmin: boolean;
  errors: Record<string, string[] | undefined>;
}) {
  const scopes: (readonly [ResponseCacheScope, string])[] = [
    ["user", "The owner's tokens"],
    ["token", "This token only"],
  ];
  if (props.isAdmin || props.value.scope === "team") scopes.push(["team", "Every token of the token's team"]);
  if (props.isAdmin || props.value.scope === "group") scopes.push(["group", "Everyone in the token's group"]);
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <NumberField
        label="Response cache TTL (seconds)"
        name="responseCacheTtlSeconds"
        errors={props.errors}
        hint="Identical calls are answered from the cache for this long, without an upstream call. Empty: off (a call may still ask with x-tollgate-cache: on)."
        value={props.value.ttl}
        onChange={(ttl) => props.onChange({ ...props.value, ttl })}
      />
      <SelectField
        label="Cached answers shared by"
        name="responseCacheScope"
        errors={props.errors}
        value={props.value.scope}
        options={scopes}
        disabled={!props.isAdmin && (props.value.scope === "group" || props.value.scope === "team")}
        hint={props.isAdmin ? "The team and group scopes share answers between users: only administrators set them (team: for a token of a team)." : undefined}
        onChange={(scope) => props.onChange({ ...props.value, scope: scope as ResponseCacheScope })}
      />
    </div>
  );
}
