export * from "./money";
export * from "./secret-box";
export * from "./token-key";
export * from "./openai-compatible-presets";
export * from "./ip-entry";
export * from "./pending-replies";
