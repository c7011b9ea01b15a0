export * from "./channels";
export * from "./models";
export * from "./request-logs";
export * from "./settings";
export * from "./tokens";
export * from "./users";
export * from "./sessions";
export * from "./usage-hourly";
