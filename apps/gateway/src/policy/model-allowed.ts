import type { CachedTeam, CachedToken, CachedUser } from "../auth/cached-records";
import { errors, type LimitScope } from "../errors";

/**
 * Whose model list refuses `model`: the key's own, else its owner's (an administrator's list binds every key
 * of the user, so a key can only narrow it); null when both allow it.
 */
export function modelRefusedBy(caller: { token: CachedToken; user: CachedUser; team?: CachedTeam | null }, model: string): LimitScope | null {
  if (caller.token.allowedModels && !caller.token.allowedModels.has(model)) return "token";
  if (caller.user.allowedModels && !caller.user.allowedModels.has(model)) return "user";
  if (caller.team?.allowedModels && !caller.team.allowedModels.has(model)) return "team";
  return null;
}

/** Throws 403 model_not_allowed, naming whose list refused, unless both the key and its owner may call `model`. */
export function checkModelAllowed(caller: { token: CachedToken; user: CachedUser; team?: CachedTeam | null }, model: string): void {
  const scope = modelRefusedBy(caller, model);
  if (scope !== null) throw errors.modelNotAllowed(model, scope);
}
