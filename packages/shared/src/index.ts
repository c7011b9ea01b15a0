export * from "./money";
export * from "./secret-box";
export * from "./token-key";
