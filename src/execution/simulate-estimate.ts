// Kept only for src/node/ (owned by another change), which still imports this path; the code lives in
// simulation/. Delete once node/ imports simulation/estimate.ts directly.
export * from './simulation/estimate.ts';
