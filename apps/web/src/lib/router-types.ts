import type { AppRouter } from "@tollgate/console";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

export type Outputs = inferRouterOutputs<AppRouter>;
export type Inputs = inferRouterInputs<AppRouter>;
export type TokenView = Outputs["tokens"]["list"]["items"][number];
export type ChannelView = Outputs["channels"]["list"][number];
export type UserView = Outputs["users"]["list"]["items"][number];
