export * from "./money";
export * from "./secret-box";
export * from "./token-key";
export * from "./is-record";
export * from "./ip-entry";
export * from "./pending-replies";
export * from "./unit-price";
