export * from "./client";
export * from "./migrate";
export * from "./notify";
export * from "./schema";
export * from "./embedded-secret";
export * from "./data-dir-lock";
export * from "./database-errors";
export * from "./token-columns";
