// Re-exports of src/api/ (docs/ARCHITECTURE.md, "Frontend API"), where each name is now
// defined: kept only so that existing imports of this file keep working until
// scripts/rewrite-api-imports.mjs points them at src/api/ and deletes this file.

export * from './api/artifacts';
